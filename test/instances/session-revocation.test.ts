/**
 * Ending a session from the sessions list, across instances (docs/reference/http.md, "Where you are
 * signed in"): two instances on one database, no Redis (each learns of the other's changes by
 * polling the store). A token family ended on B: A refuses its access token — remembered there
 * since its first use — within 5 seconds, and a socket A holds open with that token closes with
 * 4403; the user's other family, its token and its socket go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
const POLL_INTERVAL_MS = 50;

function familyIdOf(accessToken: string): string {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { gh_sid: number };
  return `t${payload.gh_sid}`;
}

describe.each(engines)('a session ended on another instance, on $engine', (engine) => {
  let a: TestApp;
  let b: TestApp;
  let url: string;

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    // Sequentially: the first creates the key ring, the second opens it.
    a = await startTestApp(databaseUrl);
    b = await startTestApp(databaseUrl);
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

    const response = await b.app.inject({ method: 'DELETE', url: `/account/sessions/${familyIdOf(ended)}`, headers: bearer(kept) });
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
});
