/**
 * A socket outliving its credential (docs/reference/tokens.md and docs/reference/graphql.md): a socket opened with an access token
 * — in `connection_init` or in the upgrade's `Authorization` header — closes with 4403 at the
 * token's `exp`, without the 30 seconds of clock skew a request would get; a socket opened with the
 * auth cookie closes with 4403 when its session ends, and a request that slides the session
 * moves that end: the socket lives on past the first end and closes at the new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
/** Tokens of 3 seconds. */
const ACCESS_TOKEN_MINUTES = '0.05';
/** Sessions of 3.6 seconds: one slides once 1.8 seconds have passed since its expiry was set. */
const COOKIE_HOURS = '0.001';
const COOKIE_MS = 3_600;
/** Less than the 30 seconds of skew a token gets over HTTP: a socket that waited for it fails the test. */
const SOON_AFTER_EXP_MS = 15_000;

/** Resolves once `condition` holds, polling; rejects after `ms`. */
async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Concurrent: each test waits seconds of real time for its own user's credential to end, and
// shares nothing with the others but the instance.
describe.concurrent.each(engines)('sockets close when their credential expires, on $engine', (engine) => {
  let instance: TestApp;
  let url: string;

  beforeAll(async () => {
    instance = await startTestApp(await engine.createDatabaseUrl(), { env: { ACCESS_TOKEN_MINUTES, COOKIE_HOURS, PUBLIC_URL } });
    url = `${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await instance?.close();
    await engine.dropAll();
  });

  const expOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp * 1000;

  it('closes a socket opened with a token in connection_init with 4403 at its exp', async () => {
    const { user } = await instance.createUser();
    const token = await instance.tokenFor(user);
    const socket = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    const closed = await socket.closedWithin(expOf(token) - Date.now() + SOON_AFTER_EXP_MS);
    expect(closed.code).toBe(4403);
    expect(Date.now()).toBeGreaterThanOrEqual(expOf(token));
  });

  it("closes a socket opened with a token in the upgrade's Authorization header with 4403 at its exp", async () => {
    const { user } = await instance.createUser();
    const token = await instance.tokenFor(user);
    const socket = openSocket(url, { headers: { authorization: `Bearer ${token}` } });
    expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    const posts = socket.subscribe('subscription { postCreated { title } }');
    const closed = await socket.closedWithin(expOf(token) - Date.now() + SOON_AFTER_EXP_MS);
    expect(closed.code).toBe(4403);
    expect(Date.now()).toBeGreaterThanOrEqual(expOf(token));
    expect(posts.received).toEqual([]);
  });

  it('closes a socket opened with the auth cookie with 4403 when its session ends', async () => {
    const signedInAt = Date.now();
    const { cookie, user } = await signInWithCookie(instance);
    const socket = openSocket(url, { headers: { cookie, origin: PUBLIC_URL } });
    expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    const closed = await socket.closedWithin(COOKIE_MS + SOON_AFTER_EXP_MS);
    expect(closed.code).toBe(4403);
    expect(Date.now()).toBeGreaterThanOrEqual(signedInAt + COOKIE_MS);
  });

  it('keeps a cookie socket open past its first end when a request slid the session, and closes it at the new end', async () => {
    const { cookie, user } = await signInWithCookie(instance, { rememberMe: true });
    // The session ends at most this long after its sign-in returned.
    const firstEnd = Date.now() + COOKIE_MS;
    const socket = openSocket(url, { headers: { cookie, origin: PUBLIC_URL } });
    await socket.connected;
    // A request slides the session once half its lifetime has passed; a persistent cookie is then re-sent.
    let slidAt = 0;
    await until(async () => {
      slidAt = Date.now();
      const response = await instance.app.inject({ url: '/account/profile', headers: { cookie } });
      expect(response.statusCode).toBe(200);
      return authSetCookie(response) !== undefined;
    });
    // Past the first end, the socket is open and still answers for its user.
    await until(() => Date.now() > firstEnd + 300, COOKIE_MS * 2);
    expect(socket.isClosed()).toBe(false);
    expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    const closed = await socket.closedWithin(COOKIE_MS + SOON_AFTER_EXP_MS);
    expect(closed.code).toBe(4403);
    expect(Date.now()).toBeGreaterThanOrEqual(slidAt + COOKIE_MS);
  });
});
