/**
 * Ending a session from the sessions list, across instances (docs/reference/http.md, "Where you are
 * signed in"): two instances on one database, no Redis (each learns of the other's changes by
 * polling the store). A token family ended on B: A refuses its access token — remembered there
 * since its first use — within 5 seconds, and a socket A holds open with that token closes with
 * 4403; the user's other family, its token and its socket go on. Cookie sessions ended on B by
 * "Sign out everywhere else", then by the admin's "sign out everywhere": A refuses their cookies at
 * once (every cookie request reads the store) and closes their sockets with 4403 within 5 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
const POLL_INTERVAL_MS = 50;
/** A cookie socket's upgrade must come from PUBLIC_URL's origin. */
const PUBLIC_URL = 'http://gatehouse.test';

/** The family an access token names (`gh_sid`), as the list names it. */
function familyIdOf(app: TestApp, accessToken: string): string {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { gh_sid: number };
  return app.services.userSessions.ids.format({ kind: 'token', id: payload.gh_sid });
}

describe.each(engines)('a session ended on another instance, on $engine', (engine) => {
  let a: TestApp;
  let b: TestApp;
  let url: string;

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    // Sequentially: the first creates the key ring, the second opens it.
    a = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    b = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    url = `${(await a.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await engine.dropAll();
  });

  it("refuses the ended family's access token on the other instance within 5 s and closes its socket there with 4403", async () => {
    const { user, password } = await a.createUser();
    const signIn = async () => {
      const response = await a.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
      expect(response.statusCode).toBe(200);
      return json<{ accessToken: string }>(response).accessToken;
    };
    const ended = await signIn();
    const kept = await signIn();
    // A has verified and remembered both tokens, and holds a socket open with each.
    for (const token of [ended, kept]) expect((await a.app.inject({ url: '/me', headers: bearer(token) })).statusCode).toBe(200);
    const endedSocket = openSocket(url, { connectionParams: { authorization: `Bearer ${ended}` } });
    const keptSocket = openSocket(url, { connectionParams: { authorization: `Bearer ${kept}` } });
    for (const socket of [endedSocket, keptSocket]) expect(await socket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });

    const response = await b.app.inject({ method: 'DELETE', url: `/account/sessions/${familyIdOf(b, ended)}`, headers: bearer(kept) });
    expect(response.statusCode).toBe(204);
    const deadline = Date.now() + PROPAGATION_MS;

    expect((await endedSocket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    for (;;) {
      const startedAt = Date.now();
      if (startedAt >= deadline) throw new Error(`A still accepts the ended family's token after ${PROPAGATION_MS} ms`);
      if ((await a.app.inject({ url: '/me', headers: bearer(ended) })).statusCode === 401) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
    expect((await a.app.inject({ url: '/me', headers: bearer(kept) })).statusCode).toBe(200);
    expect(keptSocket.isClosed()).toBe(false);
    expect(await keptSocket.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    await keptSocket.dispose();
  });

  it('ends cookie sessions from the other instance: their cookies are refused on A and their sockets there close with 4403', async () => {
    const { cookie: kept, user, password } = await signInWithCookie(a);
    const signInAgain = async () => {
      const response = await a.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
      expect(response.statusCode).toBe(200);
      return cookiePair(authSetCookie(response)!);
    };
    const ended = await signInAgain();
    const me = { data: { me: { id: String(user.id) } } };
    const keptSocket = openSocket(url, { headers: { cookie: kept, origin: PUBLIC_URL } });
    const endedSocket = openSocket(url, { headers: { cookie: ended, origin: PUBLIC_URL } });
    for (const socket of [keptSocket, endedSocket]) expect(await socket.execute('{ me { id } }')).toEqual(me);

    // "Sign out everywhere else" on B, from the kept session.
    expect((await b.app.inject({ method: 'POST', url: '/account/sessions/revoke-others', headers: { cookie: kept } })).statusCode).toBe(204);
    expect((await a.app.inject({ url: '/me', headers: { cookie: ended } })).statusCode).toBe(401);
    expect((await endedSocket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    expect((await a.app.inject({ url: '/me', headers: { cookie: kept } })).statusCode).toBe(200);
    expect(keptSocket.isClosed()).toBe(false);

    // The admin's "sign out everywhere" on B: the last session goes too, with its socket on A.
    const { user: admin } = await b.createUser({ roles: ['Admin'] });
    expect((await b.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}/sessions`, headers: bearer(await b.tokenFor(admin)) })).statusCode).toBe(204);
    expect((await a.app.inject({ url: '/me', headers: { cookie: kept } })).statusCode).toBe(401);
    expect((await keptSocket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });
});
