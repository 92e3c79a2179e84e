/**
 * An instance cut off from PostgreSQL does not honour what may have been revoked elsewhere
 * (docs/operations.md, docs/reference/tokens.md): two instances share one database, A reaches it
 * through a TCP proxy the test cuts. While A is cut, B changes a user's password and revokes an
 * API key. Within the contract's 5 seconds A refuses the user's old token and the old key with 503
 * `GH_REVOCATIONS_STALE` and `Retry-After` (not 200, which it answered before the cut), closes the
 * sockets opened with them (4403, as for any credential HTTP would refuse), and `/health/ready`
 * says it is not ready, naming the stale revocations. With Redis up the nudges still arrive, but
 * a nudge carries no revocation: A is as stale as without. When the proxy forwards again, A
 * catches up on its own: the old token and key are refused as revoked (401), a new token is
 * accepted, and it is ready again.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { type TestEngine, redisAvailable, testEngines } from '../helpers/databases.ts';
import { openSocket, type TestSocket } from '../helpers/graphql-socket.ts';
import { waitUntil } from '../helpers/processes.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const postgres = (await testEngines()).find((engine) => engine.engine === 'postgres');
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const withRedis = await redisAvailable();
const PUBLIC_URL = 'http://gatehouse.test';
/**
 * The contract's bound (a change reaches every instance within 5 seconds), counted from the
 * change on B; the cut came before it, so A's view was already ageing.
 */
const PROPAGATION_MS = 5_000;
/** How long A may take to catch up once the proxy forwards again (a fresh connection, then a poll). */
const RECOVERY_MS = 20_000;

const setups = [{ redis: false }, ...(withRedis ? [{ redis: true }] : [])];

describe.skipIf(!postgres).each(setups)('an instance cut off from PostgreSQL, Redis $redis', { timeout: 90_000 }, ({ redis }) => {
  const engine = postgres as TestEngine;
  let proxy: TcpProxy;
  let a: TestApp;
  let b: TestApp;
  let socketUrl: string;
  const sockets: TestSocket[] = [];

  beforeEach(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const url = new URL(databaseUrl);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    const env = { PUBLIC_URL, ...(redis ? { REDIS_URL: redisUrl } : {}) };
    // Sequentially: the first creates the key ring, the second opens it.
    b = await startTestApp(databaseUrl, { env });
    a = await startTestApp(url.toString(), { env });
    socketUrl = `${(await a.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  });

  afterEach(async () => {
    proxy.restore();
    await Promise.all(sockets.splice(0).map((socket) => socket.dispose()));
    await a?.close();
    await b?.close();
    await proxy.close();
  });

  afterAll(() => engine.dropAll());

  const me = (headers: Record<string, string>) => a.app.inject({ url: '/me', headers });

  async function opened(socket: TestSocket): Promise<TestSocket> {
    sockets.push(socket);
    expect((await socket.execute('{ posts(first: 1) { id } }')).errors).toBeUndefined();
    return socket;
  }

  it("refuses a token and an API key revoked on B with 503 within 5 s, closes their sockets, is not ready, and recovers", async () => {
    // A user signed in with a cookie on B, holding an access token A issued; an API key.
    const { cookie, user, password } = await signInWithCookie(b);
    const token = await a.tokenFor(user);
    const key = await a.apiKey('cut-off-client');
    expect((await me(bearer(token))).statusCode).toBe(200);
    expect((await me({ 'x-api-key': key })).statusCode).toBe(200);
    const tokenSocket = await opened(openSocket(socketUrl, { connectionParams: { authorization: `Bearer ${token}` } }));
    const keySocket = await opened(openSocket(socketUrl, { headers: { 'x-api-key': key } }));
    const anonymousSocket = await opened(openSocket(socketUrl));

    proxy.cut();
    const changed = await b.app.inject({
      method: 'POST',
      url: '/account/password',
      headers: { cookie, origin: PUBLIC_URL },
      payload: { currentPassword: password, newPassword: `${password} but new` },
    });
    expect(changed.statusCode, changed.body).toBe(204);
    expect(await b.services.apiKeys.revokeClient('cut-off-client')).toBeGreaterThan(0);
    await b.services.revocationFeed.announce();

    // Refused, not honoured, within the contract's bound: fail closed with a retryable 503.
    await waitUntil(async () => (await me(bearer(token))).statusCode === 503, { timeoutMs: PROPAGATION_MS, intervalMs: 50, what: 'A to refuse the old token with 503' });
    for (const headers of [bearer(token), { 'x-api-key': key }]) {
      const refused = await me(headers);
      expect(refused.statusCode, refused.body).toBe(503);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['retry-after']).toBe('5');
      expect(json(refused)).toMatchObject({ status: 503, title: 'Service Unavailable', code: 'GH_REVOCATIONS_STALE' });
    }
    // GraphQL over HTTP refuses them alike, before execution.
    const graphql = await a.app.inject({ method: 'POST', url: '/graphql', headers: bearer(token), payload: { query: '{ me { id } }' } });
    expect(graphql.statusCode, graphql.body).toBe(503);
    expect(json(graphql)).toMatchObject({ code: 'GH_REVOCATIONS_STALE' });
    expect((await tokenSocket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    expect((await keySocket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    // A socket with no credential has nothing to vouch for.
    expect(anonymousSocket.isClosed()).toBe(false);
    // A new socket with the old token is refused too.
    const late = openSocket(socketUrl, { connectionParams: { authorization: `Bearer ${token}` } });
    sockets.push(late);
    expect((await late.closedWithin(PROPAGATION_MS)).code).toBe(4403);

    const readiness = await a.app.inject({ url: '/health/ready' });
    expect(readiness.statusCode).toBe(503);
    expect(readiness.headers['retry-after']).toBe('5');
    expect(json(readiness)).toMatchObject({ status: 503, checks: { store: 'down', revocations: 'stale' } });
    expect((await a.app.inject({ url: '/health' })).statusCode).toBe(200);

    proxy.restore();
    await waitUntil(async () => (await me(bearer(token))).statusCode === 401, { timeoutMs: RECOVERY_MS, intervalMs: 100, what: 'A to refuse the old token as revoked' });
    expect((await me({ 'x-api-key': key })).statusCode).toBe(401);
    expect((await me(bearer(await b.tokenFor((await b.services.users.findById(user.id))!)))).statusCode).toBe(200);
    await waitUntil(async () => (await a.app.inject({ url: '/health/ready' })).statusCode === 200, { timeoutMs: RECOVERY_MS, what: 'A to be ready again' });
    expect(json(await a.app.inject({ url: '/health/ready' }))).toMatchObject({ checks: { store: 'up', revocations: 'current' } });
    expect(a.logs.some((line) => line.includes('revocations unknown for over 5 s'))).toBe(true);
    expect(a.logs.some((line) => line.includes('revocations are current again'))).toBe(true);
  });
});
