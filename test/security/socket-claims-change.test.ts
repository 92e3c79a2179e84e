/**
 * A socket keeping claims its user lost (docs/reference/tokens.md and docs/reference/graphql.md). A claims change — a role added
 * or removed, on another instance — refuses the access tokens issued before it, so a socket opened
 * with one (in `connection_init` or the upgrade's `Authorization`) closes with 4403 within 5
 * seconds. A socket opened with the auth cookie carries on with the new claims: an admin demoted
 * while their socket is open can no longer read another user's `email` or edit another author's
 * post on it, in later operations and in the events of a subscription they started as admin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { openSocket, type Received } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;

describe.each(engines)('sockets and claims changes made on another instance, on $engine', (engine) => {
  let a: TestApp;
  let b: TestApp;
  let url: string;
  let admin: Record<string, string>;

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
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

  const roleChange = async (method: 'POST' | 'DELETE', userId: number, role: string) => {
    const response =
      method === 'POST'
        ? await b.app.inject({ method, url: `/admin/users/${userId}/roles`, headers: admin, payload: { role } })
        : await b.app.inject({ method, url: `/admin/users/${userId}/roles/${role}`, headers: admin });
    expect(response.statusCode).toBe(204);
  };

  const createPost = async (token: string, title: string): Promise<string> => {
    const response = await a.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(token),
      payload: { query: 'mutation ($title: String!) { createPost(title: $title, body: "text") { id } }', variables: { title } },
    });
    return json<{ data: { createPost: { id: string } } }>(response).data.createPost.id;
  };

  const codes = (received: Received) => (received.errors ?? []).map((error) => error.extensions?.code);

  it('closes a socket opened with a token in connection_init when a role is added to its user', async () => {
    const { user } = await a.createUser();
    const socket = openSocket(url, { connectionParams: { authorization: `Bearer ${await a.tokenFor(user)}` } });
    expect(await socket.execute('{ me { roles } }')).toEqual({ data: { me: { roles: [] } } });
    await roleChange('POST', user.id, 'Editor');
    expect((await socket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });

  it("closes a socket opened with a token in the upgrade's Authorization header when a role is removed from its user", async () => {
    const { user } = await a.createUser({ roles: ['Editor'] });
    const socket = openSocket(url, { headers: bearer(await a.tokenFor(user)) });
    expect(await socket.execute('{ me { roles } }')).toEqual({ data: { me: { roles: ['Editor'] } } });
    await roleChange('DELETE', user.id, 'Editor');
    expect((await socket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });

  it('keeps a cookie socket open with the new claims: a demoted admin loses email and other authors\' posts on it', async () => {
    const writer = await a.createUser();
    const writerToken = await a.tokenFor(writer.user);
    const { cookie, user } = await signInWithCookie(a);
    await roleChange('POST', user.id, 'Admin');
    const socket = openSocket(url, { headers: { cookie, origin: PUBLIC_URL } });

    const postId = await createPost(writerToken, 'by the writer');
    const read = `{ post(id: "${postId}") { author { email } } }`;
    const edit = `mutation { updatePost(id: "${postId}", title: "edited") { title } }`;
    expect(await socket.execute(read)).toEqual({ data: { post: { author: { email: writer.user.email } } } });
    expect(await socket.execute(edit)).toEqual({ data: { updatePost: { title: 'edited' } } });
    const events = socket.subscribe('subscription { postCreated { title author { email } } }');
    // The subscription is active once an event reaches it: posts until one does.
    await eventually(async () => {
      await createPost(writerToken, 'seen as admin');
      return events.received.length > 0;
    });
    expect(events.received[0]).toEqual({ data: { postCreated: { title: 'seen as admin', author: { email: writer.user.email } } } });

    await roleChange('DELETE', user.id, 'Admin');
    // The change reaches the socket's instance within 5 seconds; from then on the socket is no admin's.
    let readAfter: Received = {};
    await eventually(async () => {
      readAfter = await socket.execute(read);
      return codes(readAfter).length > 0;
    });
    expect(readAfter.data).toEqual({ post: { author: { email: null } } });
    expect(codes(readAfter)).toEqual(['FORBIDDEN']);
    expect(await socket.execute('{ me { roles } }')).toEqual({ data: { me: { roles: [] } } });
    const editAfter = await socket.execute(edit);
    expect(editAfter.data ?? null).toBeNull();
    expect(codes(editAfter)).toEqual(['FORBIDDEN']);
    const seen = events.received.length;
    await createPost(writerToken, 'seen as a user');
    await events.receivedCount(seen + 1);
    const after = events.received.at(-1)!;
    expect(after.data).toEqual({ postCreated: { title: 'seen as a user', author: { email: null } } });
    expect(codes(after)).toEqual(['FORBIDDEN']);
    expect(socket.isClosed()).toBe(false);
    await socket.dispose();
  });
});

/** Resolves once `condition` holds, polling; rejects after the contract's 5 seconds. */
async function eventually(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + PROPAGATION_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${PROPAGATION_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
