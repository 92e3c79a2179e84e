/**
 * Decision 0066: one client cannot starve everybody's sign-in. A client flooding the sign-in
 * routes from many connections has a few of its sign-ins running at a time and the rest held in
 * line before their bodies are read, so it cannot fill the hashing queue; a flood spread over
 * several addresses can, and the queue then serves clients in turns and refuses the newest
 * waiting task of the client holding the most, so the flood is answered 503 while another
 * address signs in as usual. Over real sockets: the service listens
 * on 127.0.0.1, the flood comes from 127.0.0.2 and the other client from 127.0.0.3 (both on the
 * loopback interface), through the real hashing threads. An IPv6 client is its /64 for the rate
 * limits: fresh addresses of one /64 share one budget.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const sqlite = (await testEngines()).find((engine) => engine.engine === 'sqlite')!;
const FLOOD_ADDRESS = '127.0.0.2';
/** A flood spread over several addresses, each within its few sign-ins at a time. */
const FLOOD_ADDRESSES = ['127.0.0.2', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8'];
const OTHER_ADDRESS = '127.0.0.3';
/** Connections of the flood, each sending its next sign-in as soon as the last is answered: more than one thread holds and the queue bound together. */
const FLOOD_CONNECTIONS = 24;
/** A queue bound no other suite uses, so that this suite's pool is its own. */
const QUEUE_MAX = 5;
const OTHER_SIGN_INS = 4;
/** Each sign-in of the other address waits behind what the thread already holds: seconds on a loaded machine. */
const FLOOD_TEST_TIMEOUT_MS = 180_000;

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One JSON POST from `localAddress`, answered in full. */
function post(port: number, localAddress: string, path: string, body: unknown, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = httpRequest(
      { host: '127.0.0.1', port, localAddress, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('a sign-in flood from one address', () => {
  let ctx: TestApp;
  let port: number;

  beforeEach(async () => {
    ctx = await startTestApp(await sqlite.createDatabaseUrl(), {
      // The per-address budget is set out of the flood's reach: what is under test is the queue, which
      // a flood inside any budget that lets a second's worth of sign-ins through can fill.
      env: { HASH_THREADS: '1', HASH_QUEUE_MAX: String(QUEUE_MAX), RATE_LIMIT_IP_PER_MINUTE: '1000000' },
    });
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterEach(() => ctx.close());
  afterAll(() => sqlite.dropAll());

  /**
   * Wrong passwords for made-up accounts, on both sign-in routes (each costs a hash, the dummy
   * one), from `addresses` over FLOOD_CONNECTIONS connections in all, each sending its next as
   * soon as the last is answered; `during` runs once `started` says the flood is under way.
   */
  async function whileFlooding(addresses: readonly string[], started: (status: number) => boolean, during: () => Promise<void>): Promise<number[]> {
    const agents = addresses.map(() => new Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS }));
    const statuses: number[] = [];
    let flooding = true;
    let underWay: () => void = () => {};
    const begun = new Promise<void>((resolve) => (underWay = resolve));
    let sent = 0;
    const loop = async (connection: number) => {
      const at = connection % addresses.length;
      while (flooding) {
        sent += 1;
        const path = sent % 2 === 0 ? '/auth/token' : '/account/login';
        const answer = await post(port, addresses[at]!, path, { email: `guess-${sent}@example.com`, password: `guess ${sent}` }, agents[at]!);
        statuses.push(answer.status);
        if (started(answer.status)) underWay();
      }
    };
    const flood = Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, (_, connection) => loop(connection)));
    try {
      await begun;
      await during();
    } finally {
      flooding = false;
      await flood;
      for (const agent of agents) agent.destroy();
    }
    return statuses;
  }

  /** The other address's sign-ins, one after another: each must succeed. */
  async function otherSignsIn(user: { email: string }, password: string): Promise<void> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const statuses: number[] = [];
    try {
      for (let at = 0; at < OTHER_SIGN_INS; at++) {
        const path = at % 2 === 0 ? '/auth/token' : '/account/login';
        statuses.push((await post(port, OTHER_ADDRESS, path, { email: user.email, password }, agent)).status);
      }
    } finally {
      agent.destroy();
    }
    expect(statuses).toEqual(Array.from({ length: OTHER_SIGN_INS }, () => 200));
  }

  it('from one address is held to a few sign-ins at a time, never filling the queue, while another address signs in', async () => {
    const { user, password } = await ctx.createUser();
    // Under way once the flood's first sign-ins have been answered.
    const flood = await whileFlooding([FLOOD_ADDRESS], (status) => status === 401, () => otherSignsIn(user, password));
    // Held in line, the flood never met a full queue: wrong-password answers only.
    expect(flood.length).toBeGreaterThan(0);
    expect(flood.filter((status) => status !== 401)).toEqual([]);
  }, FLOOD_TEST_TIMEOUT_MS);

  it('from several addresses fills the queue and is refused 503, while another address signs in without one refusal', async () => {
    const { user, password } = await ctx.createUser();
    // Six addresses with a few sign-ins each hold more than the thread and the queue bound: the queue is full once the flood is refused.
    const flood = await whileFlooding(FLOOD_ADDRESSES, (status) => status === 503, () => otherSignsIn(user, password));
    expect(flood.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(flood.filter((status) => status !== 401 && status !== 503)).toEqual([]);
  }, FLOOD_TEST_TIMEOUT_MS);
});

describe('an IPv6 client', () => {
  let ctx: TestApp;

  beforeEach(async () => {
    ctx = await startTestApp(await sqlite.createDatabaseUrl(), { env: { RATE_LIMIT_IP_PER_MINUTE: '3' } });
  });
  afterEach(() => ctx.close());
  afterAll(() => sqlite.dropAll());

  it('spends one budget from every address of its /64, and another /64 has its own', async () => {
    const signIn = (remoteAddress: string) =>
      ctx.app.inject({ method: 'POST', url: '/auth/token', remoteAddress, payload: { email: 'nobody@example.com', password: 'a guess' } });
    const statuses = [];
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:aaaa::3', '2001:db8:1:2:ffff:1:2:3']) {
      statuses.push((await signIn(address)).statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await signIn('2001:db8:1:3::1')).statusCode).toBe(401);
    // An IPv4 client written as IPv6 by a dual-stack socket is the same client as its IPv4 form.
    for (const address of ['192.0.2.7', '192.0.2.7', '::ffff:192.0.2.7']) expect((await signIn(address)).statusCode).toBe(401);
    expect((await signIn('192.0.2.7')).statusCode).toBe(429);
  });
});
