/**
 * SEC-131: behind a proxy that appends to `X-Forwarded-For` (nginx, an AWS load balancer,
 * HAProxy), a client writes a left-most address of its own, a new one at every request. The
 * service reads the client's address from the right — by hop count or by the proxies' addresses
 * (`TRUST_PROXY`) — so the per-IP rate limit, the audit log and the sessions list see the address
 * the proxy saw, never the one the client wrote. Real sockets: clients connect to the proxy from
 * addresses of their own on the loopback network (127.0.0.x).
 */
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/config.ts';
import { testEngines } from '../helpers/databases.ts';
import { type ForwardingProxy, startForwardingProxy } from '../helpers/forwarding-proxy.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

let app: TestApp | undefined;
let proxy: ForwardingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await app?.close();
  proxy = app = undefined;
});

/** The service on a real port behind the proxy (the proxy reaches it from `proxyAddress`). */
async function start(env: Record<string, string>, proxyAddress = '127.0.0.1'): Promise<{ app: TestApp; proxy: ForwardingProxy; direct: string }> {
  app = await startTestApp(await sqlite!.createDatabaseUrl(), { env });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const direct = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
  proxy = await startForwardingProxy(new URL(direct), { localAddress: proxyAddress });
  return { app, proxy, direct };
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** One request from `from` (a loopback address of the client's own), as a client writes it. */
function send(base: string, from: string, path: string, { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, localAddress: from, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: text, headers: answer.headers }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

let forged = 0;
/** A different made-up left-most address each time, as the attacker writes them. */
const forgedAddress = () => `198.51.100.${++forged % 250}`;

describe.each([
  ['a hop count', { TRUST_PROXY: '1' }],
  ['true (one hop)', { TRUST_PROXY: 'true' }],
  ["the proxy's address", { TRUST_PROXY: '127.0.0.1' }],
  ["the proxies' CIDRs", { TRUST_PROXY: '10.0.0.0/8,127.0.0.0/30' }],
])('X-Forwarded-For behind an appending proxy, trusted by %s', (_label, trust) => {
  it('counts a guesser who writes a new left-most address each time against its real address', async () => {
    const { proxy } = await start({ ...trust, RATE_LIMIT_IP_PER_MINUTE: '5', RATE_LIMIT_ACCOUNT_PER_MINUTE: '0' });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const answer = await send(proxy.url, '127.0.0.7', '/auth/token', {
        method: 'POST',
        headers: { 'x-forwarded-for': forgedAddress() },
        body: { userName: `guess${attempt}`, password: 'not the password' },
      });
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    // Another client behind the same proxy has a budget of its own.
    const other = await send(proxy.url, '127.0.0.8', '/auth/token', { method: 'POST', body: { userName: 'someone', password: 'not the password' } });
    expect(other.status).toBe(401);
  });

  it('writes the address the proxy saw into the audit log and the sessions list', async () => {
    const { app, proxy } = await start(trust);
    const { user, password } = await app.createUser();
    const spoofed = forgedAddress();
    const signIn = await send(proxy.url, '127.0.0.9', '/account/login', {
      method: 'POST',
      headers: { 'x-forwarded-for': spoofed },
      body: { email: user.email, password },
    });
    expect(signIn.status).toBe(200);
    const cookie = [signIn.headers['set-cookie']].flat().map((line) => String(line).split(';')[0]).join('; ');
    const sessions = await send(proxy.url, '127.0.0.9', '/account/sessions', { headers: { cookie, 'x-forwarded-for': forgedAddress() } });
    expect(sessions.status).toBe(200);
    expect((JSON.parse(sessions.body) as { ip: string }[]).map((session) => session.ip)).toEqual(['127.0.0.9']);

    const { user: admin } = await app.createUser({ roles: ['Admin'] });
    const audit = await send(proxy.url, '127.0.0.10', '/admin/audit', { headers: { authorization: `Bearer ${await app.tokenFor(admin)}` } });
    const events = (JSON.parse(audit.body) as { events: { type: string; userId: number; ip: string }[] }).events;
    const signedIn = events.find((event) => event.type === 'signin.succeeded' && event.userId === user.id);
    expect(signedIn?.ip).toBe('127.0.0.9');
    expect(audit.body).not.toContain(spoofed);
  });
});

describe('TRUST_PROXY as a list of proxy addresses', () => {
  it("believes X-Forwarded-For only from the listed proxy, not from a client that reaches the service directly", async () => {
    const { proxy, direct } = await start({ TRUST_PROXY: '127.0.0.3', RATE_LIMIT_IP_PER_MINUTE: '3', RATE_LIMIT_ACCOUNT_PER_MINUTE: '0' }, '127.0.0.3');
    const guess = (base: string, from: string) =>
      send(base, from, '/auth/token', { method: 'POST', headers: { 'x-forwarded-for': forgedAddress() }, body: { userName: 'x', password: 'not the password' } });
    const directly = [];
    for (let attempt = 0; attempt < 4; attempt += 1) directly.push((await guess(direct, '127.0.0.11')).status);
    expect(directly).toEqual([401, 401, 401, 429]);
    const proxied = [];
    for (let attempt = 0; attempt < 4; attempt += 1) proxied.push((await guess(proxy.url, '127.0.0.12')).status);
    expect(proxied).toEqual([401, 401, 401, 429]);
  });
});

describe('the TRUST_PROXY setting', () => {
  it.each([
    ['false', false],
    ['0', false],
    ['true', { hops: 1 }],
    ['1', { hops: 1 }],
    ['2', { hops: 2 }],
    ['10.0.0.0/8, 192.168.1.7 ,loopback,fd00::/8', { addresses: ['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8'] }],
  ])('reads %j', (value, trusted) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(trusted);
  });

  it.each(['yes please', '10.0.0.0/33', '10.0.0.300', 'fd00::/129', '33', '10.0.0.0/8/1', 'example.com'])('refuses %j naming the variable', (value) => {
    let error: unknown;
    try {
      loadConfig({ TRUST_PROXY: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('TRUST_PROXY');
    expect((error as Error).message).toContain('number of proxy hops');
  });
});
