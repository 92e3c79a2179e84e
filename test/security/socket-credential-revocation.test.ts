/**
 * A socket outliving the revocation of its credential (docs/reference/tokens.md and docs/reference/graphql.md), across instances:
 * the socket is open on instance A, the change is made on instance B (same database, no Redis:
 * A learns of it by polling the store), and the socket closes with 4403 within 5 seconds —
 * whatever carried its credential. A token (in `connection_init` or the upgrade's
 * `Authorization`) ends with a security change of its user; an API key (`X-Api-Key`) with its
 * revocation; an auth-cookie socket with the sign-out of its session, a password change, an admin
 * lock or the deletion of its user. Sockets of other sessions and other keys stay open. A token
 * also ends with the revocation of the key that signed it. With Redis, a sign-out on B closes the
 * socket on A through the nudge as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { redisAvailable, testEngines } from '../helpers/databases.ts';
import { openSocket, type TestSocket } from '../helpers/graphql-socket.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;

// The engines' suites run side by side (each test mostly waits for a poll of the store); within
// one engine the tests run in order, since revoking the signing key ends every token.
describe.concurrent.each(engines)('sockets close when their credential is revoked on another instance, on $engine', (engine) => {
  describe.sequential('two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let url: string;
  let admin: Record<string, string>;

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    // Sequentially: the first creates the key ring, the second opens it.
    a = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    b = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    url = `${(await a.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
    admin = bearer(await b.tokenFor((await b.createUser({ roles: ['Admin'] })).user));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await engine.dropAll();
  });

  /** An open socket that answers for `userId` (or, for an API key, for no user). */
  async function opened(socket: TestSocket, userId: number | null): Promise<TestSocket> {
    expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: userId === null ? null : { id: String(userId) } } });
    return socket;
  }

  /** The change has returned: the socket must close with 4403 within the contract's 5 seconds. */
  async function expectClosedByRevocation(socket: TestSocket): Promise<void> {
    expect((await socket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  }

  const onB = async (method: 'POST' | 'DELETE', path: string, headers: Record<string, string>, payload?: object) => {
    const response = await b.app.inject({ method, url: path, headers, ...(payload ? { payload } : {}) });
    expect(response.statusCode).toBe(204);
  };

  it('closes a socket opened with a token in connection_init at an admin lock', async () => {
    const { user } = await a.createUser();
    const socket = await opened(openSocket(url, { connectionParams: { authorization: `Bearer ${await a.tokenFor(user)}` } }), user.id);
    const posts = socket.subscribe('subscription { postCreated { title } }');
    await onB('POST', `/admin/users/${user.id}/lock`, admin);
    await expectClosedByRevocation(socket);
    expect(posts.received).toEqual([]);
  });

  it("closes a socket opened with a token in the upgrade's Authorization header at the deletion of its user", async () => {
    const { user } = await a.createUser();
    const socket = await opened(openSocket(url, { headers: bearer(await a.tokenFor(user)) }), user.id);
    await onB('DELETE', `/admin/users/${user.id}`, admin);
    await expectClosedByRevocation(socket);
  });

  it("closes a socket opened with an API key in the upgrade's X-Api-Key when the key is revoked, and no other key's", async () => {
    const revoked = await opened(openSocket(url, { headers: { 'x-api-key': await a.apiKey('revoked-client') } }), null);
    const other = await opened(openSocket(url, { headers: { 'x-api-key': await a.apiKey('other-client') } }), null);
    // As `gatehouse apikeys revoke` does, from B's side of the shared store.
    expect(await b.services.apiKeys.revokeClient('revoked-client')).toBeGreaterThan(0);
    await b.services.revocationFeed.announce();
    await expectClosedByRevocation(revoked);
    await opened(other, null);
    expect(other.isClosed()).toBe(false);
    await other.dispose();
  });

  it('closes a cookie socket at the sign-out of its session, and not the socket of another session of the user', async () => {
    const { cookie, user, password } = await signInWithCookie(a);
    const socket = await opened(openSocket(url, { headers: { cookie, origin: PUBLIC_URL } }), user.id);
    const elsewhere = await signInAgain(user.email, password);
    const otherSocket = await opened(openSocket(url, { headers: { cookie: elsewhere, origin: PUBLIC_URL } }), user.id);
    await onB('POST', '/account/logout', { cookie });
    await expectClosedByRevocation(socket);
    await opened(otherSocket, user.id);
    expect(otherSocket.isClosed()).toBe(false);
    await otherSocket.dispose();
  });

  it("closes a cookie socket when its user's password is changed from another session", async () => {
    const { cookie, user, password } = await signInWithCookie(a);
    const socket = await opened(openSocket(url, { headers: { cookie, origin: PUBLIC_URL } }), user.id);
    const elsewhere = await signInAgain(user.email, password);
    await onB('POST', '/account/password', { cookie: elsewhere, origin: PUBLIC_URL }, { currentPassword: password, newPassword: `${password} but new` });
    await expectClosedByRevocation(socket);
  });

  it('closes a cookie socket at an admin lock of its user', async () => {
    const { cookie, user } = await signInWithCookie(a);
    const socket = await opened(openSocket(url, { headers: { cookie, origin: PUBLIC_URL } }), user.id);
    await onB('POST', `/admin/users/${user.id}/lock`, admin);
    await expectClosedByRevocation(socket);
  });

  it('closes a cookie socket at the deletion of its user', async () => {
    const { cookie, user } = await signInWithCookie(a);
    const socket = await opened(openSocket(url, { headers: { cookie, origin: PUBLIC_URL } }), user.id);
    const posts = socket.subscribe('subscription { postCreated { title } }');
    await onB('DELETE', `/admin/users/${user.id}`, admin);
    await expectClosedByRevocation(socket);
    expect(posts.received).toEqual([]);
  });

  // Last: it revokes the key every token so far was signed with.
  it('closes a socket opened with a token at the revocation of its signing key', async () => {
    const { user } = await a.createUser();
    const token = await a.tokenFor(user);
    const socket = await opened(openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } }), user.id);
    const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
    // As `gatehouse keys revoke` does, from B's side of the shared store.
    expect((await b.services.keyRing.revoke(kid)).revoked).toBe(true);
    await b.services.revocationFeed.announce();
    await expectClosedByRevocation(socket);
  });

  /** A second session of the same user, signed in on B. */
  async function signInAgain(email: string, password: string): Promise<string> {
    const response = await b.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
    expect(response.statusCode).toBe(200);
    const setCookie = [response.headers['set-cookie']].flat().find((line) => line?.startsWith('gh.auth='));
    return setCookie!.split(';')[0]!;
  }
});
});

const withRedis = await redisAvailable();

describe.skipIf(!withRedis)('a sign-out with Redis', () => {
  const [sqlite] = engines;
  let a: TestApp;
  let b: TestApp;
  let url: string;

  beforeAll(async () => {
    const databaseUrl = await sqlite!.createDatabaseUrl();
    const env = { PUBLIC_URL, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    a = await startTestApp(databaseUrl, { env });
    b = await startTestApp(databaseUrl, { env });
    url = `${(await a.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sqlite!.dropAll();
  });

  it("closes the session's socket on the other instance through the Redis nudge", async () => {
    const { cookie, user } = await signInWithCookie(a);
    const socket = openSocket(url, { headers: { cookie, origin: PUBLIC_URL } });
    expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    expect((await b.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie } })).statusCode).toBe(204);
    expect((await socket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });
});
