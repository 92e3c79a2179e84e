/**
 * GraphQL subscriptions over WebSocket (docs/reference/graphql.md), with the graphql-ws client against a
 * listening instance: `postCreated` delivers each new post with exactly the selected fields to
 * authenticated subscribers, anonymous ones get an error, bad credentials and expired or revoked
 * ones close the socket with 4403, and a signed-in socket opens only from a trusted origin.
 */
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

interface Received {
  data?: { postCreated: Record<string, unknown> } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe.each(engines)('GraphQL subscriptions on $engine', (engine) => {
  let instance: TestApp;
  let url: string;
  let origin: string;

  beforeAll(async () => {
    // Tokens of 3 seconds, so that one expires during a test.
    instance = await startTestApp(await engine.createDatabaseUrl(), { env: { ACCESS_TOKEN_MINUTES: '0.05', PUBLIC_URL: 'http://gatehouse.test' } });
    const address = await instance.app.listen({ host: '127.0.0.1', port: 0 });
    url = `${address.replace('http', 'ws')}/graphql`;
    origin = 'http://gatehouse.test';
  });
  afterAll(async () => {
    await instance?.close();
    await engine.dropAll();
  });

  function connect(connectionParams?: Record<string, unknown>, headers: Record<string, string> = {}) {
    let closed: { code: number; reason: string } | undefined;
    const client = createClient({
      url,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers });
        }
      },
      retryAttempts: 0,
      lazy: false,
      ...(connectionParams ? { connectionParams } : {}),
      on: {
        closed: (event) => void (closed = { code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }),
        // A refused upgrade (the foreign origin) is expected: the close code tells.
        error: () => undefined,
      },
    });
    return { client, closedWith: () => closed };
  }

  function subscribe(client: Client, query: string) {
    const received: Received[] = [];
    let ended: unknown = null;
    const stop = client.subscribe<Received['data']>({ query }, {
      next: (value) => void received.push(value as Received),
      error: (error) => void (ended = error),
      complete: () => void (ended = 'complete'),
    });
    return { received, stop, ended: () => ended };
  }

  const createPost = async (token: string, title: string) => {
    const response = await instance.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(token),
      payload: { query: `mutation { createPost(title: "${title}", body: "text of ${title}") { id } }` },
    });
    expect(json<{ errors?: unknown }>(response).errors).toBeUndefined();
  };
  const until = (check: () => boolean, ms = 8000) => expect.poll(check, { timeout: ms, interval: 50 }).toBe(true);

  it('delivers every new post to every subscriber with exactly the selected fields', async () => {
    const { user } = await instance.createUser();
    const token = await instance.tokenFor(user);
    const first = connect({ authorization: `Bearer ${token}` });
    const second = connect({ authorization: `Bearer ${token}` });
    const a = subscribe(first.client, 'subscription { postCreated { title } }');
    const b = subscribe(second.client, 'subscription { postCreated { id authorId author { id } } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await createPost(token, 'one');
    await createPost(token, 'two');
    await until(() => a.received.length === 2 && b.received.length === 2);
    expect(a.received.map((message) => message.data?.postCreated)).toEqual([{ title: 'one' }, { title: 'two' }]);
    expect(b.received[0]!.data!.postCreated).toEqual({ id: expect.any(String), authorId: String(user.id), author: { id: String(user.id) } });
    await first.client.dispose();
    await second.client.dispose();
  });

  it('delivers a shared result under each subscription id of one socket, and stops at the subscriber\'s complete', async () => {
    const { user } = await instance.createUser();
    const token = await instance.tokenFor(user);
    const socket = connect({ authorization: `Bearer ${token}` });
    const query = 'subscription { postCreated { title } }';
    const staying = subscribe(socket.client, query);
    const leaving = subscribe(socket.client, query);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await createPost(token, 'both');
    await until(() => staying.received.length === 1 && leaving.received.length === 1);
    leaving.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await createPost(token, 'one of them');
    await until(() => staying.received.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(staying.received.map((message) => message.data?.postCreated.title)).toEqual(['both', 'one of them']);
    expect(leaving.received.map((message) => message.data?.postCreated.title)).toEqual(['both']);
    await socket.client.dispose();
  });

  it('gives each subscriber its own view of fields under a policy', async () => {
    const writer = await instance.createUser();
    const reader = await instance.createUser();
    const writerToken = await instance.tokenFor(writer.user);
    const asWriter = connect({ authorization: `Bearer ${writerToken}` });
    const asReader = connect({ authorization: `Bearer ${await instance.tokenFor(reader.user)}` });
    const query = 'subscription { postCreated { title author { email } } }';
    const mine = subscribe(asWriter.client, query);
    const theirs = subscribe(asReader.client, query);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await createPost(writerToken, 'private mail');
    await until(() => mine.received.length === 1 && theirs.received.length === 1);
    expect(mine.received[0]).toEqual({ data: { postCreated: { title: 'private mail', author: { email: writer.user.email } } } });
    expect(theirs.received[0]!.data).toEqual({ postCreated: { title: 'private mail', author: { email: null } } });
    expect(theirs.received[0]!.errors!.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    await asWriter.client.dispose();
    await asReader.client.dispose();
  });

  it('answers an anonymous postCreated with UNAUTHENTICATED, and keeps the socket', async () => {
    const anonymous = connect();
    const subscription = subscribe(anonymous.client, 'subscription { postCreated { title } }');
    await until(() => subscription.ended() !== null);
    expect(subscription.received.flatMap((message) => message.errors ?? []).map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(anonymous.closedWith()).toBeUndefined();
    await anonymous.client.dispose();
  });

  it('closes with 4403 for an invalid token in connection_init', async () => {
    const bad = connect({ authorization: 'Bearer not.a.token' });
    subscribe(bad.client, 'subscription { postCreated { title } }');
    await until(() => bad.closedWith() !== undefined);
    expect(bad.closedWith()!.code).toBe(4403);
  });

  it('closes with 4403 when the access token expires mid-subscription', async () => {
    const { user } = await instance.createUser();
    const live = connect({ authorization: `Bearer ${await instance.tokenFor(user)}` });
    subscribe(live.client, 'subscription { postCreated { title } }');
    await until(() => live.closedWith() !== undefined, 10_000);
    expect(live.closedWith()!.code).toBe(4403);
  });

  it('closes with 4403 when the user is locked by an admin', async () => {
    const { user } = await instance.createUser();
    const live = connect({ authorization: `Bearer ${await instance.tokenFor(user)}` });
    const subscription = subscribe(live.client, 'subscription { postCreated { title } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.closedWith()).toBeUndefined();
    expect(await instance.services.store.users.setAdminLock(user.id, true)).toBe(true);
    await instance.services.revocationFeed.changed();
    await until(() => live.closedWith() !== undefined, 5000);
    expect(live.closedWith()!.code).toBe(4403);
    expect(subscription.received).toEqual([]);
  });

  it('opens a signed-in socket with the auth cookie only from a trusted origin', async () => {
    const { user, password } = await instance.createUser();
    const signIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    const cookie = cookiePair(authSetCookie(signIn)!);
    const foreign = connect(undefined, { cookie, origin: 'https://evil.example' });
    subscribe(foreign.client, 'subscription { postCreated { title } }');
    await until(() => foreign.closedWith() !== undefined);
    expect(foreign.closedWith()!.code).not.toBe(1000);

    const trusted = connect(undefined, { cookie, origin });
    const subscription = subscribe(trusted.client, 'subscription { postCreated { title } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await createPost(await instance.tokenFor(user), 'by cookie');
    await until(() => subscription.received.length === 1);
    expect(subscription.received[0]!.data!.postCreated).toEqual({ title: 'by cookie' });
    await trusted.client.dispose();
  });
});
