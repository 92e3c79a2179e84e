/**
 * docs/errors.md (GH_OVERLOADED), decision 0054: when more passwords wait to be hashed than
 * HASH_QUEUE_MAX allows, everything that hashes is answered 503 problem+json with Retry-After at
 * once instead of queueing; a refused sign-in is no failed attempt (no lockout count, no
 * `signin.failed` event), a refused registration writes nothing, and the service answers as
 * before once the queue drains. The queue is filled through the service's own hashing pool with
 * one long hash (seconds) ahead of cheap ones, so the requests below meet a full queue; it is
 * filled as the client the requests come from (injected requests come from 127.0.0.1), which
 * then holds the most and is the one refused (decision 0066: another client would push the
 * filler out instead, test/http/hashing-fair-share.test.ts).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const sqlite = (await testEngines()).find((engine) => engine.engine === 'sqlite')!;
/** A queue bound no other suite uses, so that this suite's pool is its own. */
const QUEUE_MAX = 3;
const TASKS_PER_THREAD = 8;
const CHEAP = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 };
/** Half a second to seconds of hashing at 19 MiB: the window in which the queue stays full. */
const LONG = { algorithm: 2, memoryCost: 19_456, timeCost: 150, parallelism: 1 };
/** The client key of an injected request's address. */
const CLIENT = '127.0.0.1';

describe('a full hashing queue', () => {
  let ctx: TestApp;

  beforeEach(async () => {
    ctx = await startTestApp(await sqlite.createDatabaseUrl(), {
      env: { HASH_THREADS: '1', HASH_QUEUE_MAX: String(QUEUE_MAX), RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' },
    });
  });
  afterEach(() => ctx.close());
  afterAll(() => sqlite.dropAll());

  /** The one thread's share and the whole queue, the long hash first; resolves when all are done. */
  function fillQueue(): Promise<unknown> {
    const { hashing } = ctx.services;
    expect(hashing.threads).toBe(1);
    const tasks = [
      hashing.hash('long', LONG, CLIENT),
      ...Array.from({ length: TASKS_PER_THREAD - 1 + QUEUE_MAX }, (_, at) => hashing.hash(`cheap ${at}`, CHEAP, CLIENT)),
    ];
    expect(hashing.queueDepth).toBe(QUEUE_MAX);
    return Promise.all(tasks);
  }

  function expectOverloaded(response: LightMyRequestResponse): void {
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toMatchObject({ status: 503, title: 'Service Unavailable', code: 'GH_OVERLOADED', type: 'urn:gatehouse:problem:overloaded' });
    expect(String(response.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
  }

  it('answers every sign-in 503 with Retry-After at once, counts no failure, and signs in again once it drains', async () => {
    const { user, password } = await ctx.createUser();
    const auditBefore = (await ctx.services.store.audit.list({ limit: 100 })).length;
    const drained = fillQueue();

    const login = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/account/login', payload });
    expectOverloaded(await login({ email: user.email, password }));
    expectOverloaded(await login({ email: user.email, password: 'a wrong password' }));
    // An unknown account is refused alike: the refusal tells nothing of who exists.
    expectOverloaded(await login({ email: 'nobody@example.com', password: 'whatever it is' }));
    expectOverloaded(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password: 'a wrong password' } }));
    expect(ctx.services.hashing.queueDepth).toBe(QUEUE_MAX);

    await drained;
    expect((await ctx.services.store.users.findById(user.id))?.accessFailedCount).toBe(0);
    expect((await ctx.services.store.audit.list({ limit: 100 })).length).toBe(auditBefore);
    expect((await login({ email: user.email, password })).statusCode).toBe(200);
    expect((await login({ email: user.email, password: 'a wrong password' })).statusCode).toBe(401);
    expect((await ctx.services.store.users.findById(user.id))?.accessFailedCount).toBe(1);
  });

  it('refuses a registration without writing the account', async () => {
    const drained = fillQueue();
    const email = 'new-person@example.com';
    expectOverloaded(await ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email, password: 'a long and unusual passphrase' } }));
    await drained;
    expect(await ctx.services.users.findByEmail(email)).toBeNull();
  });
});
