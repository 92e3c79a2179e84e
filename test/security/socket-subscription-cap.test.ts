/**
 * One socket holding subscriptions without end (docs/reference/configuration.md and docs/reference/graphql.md): at most
 * `GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET` subscriptions are active on one socket. One more gets a
 * graphql-ws `error` message for its id (`TOO_MANY_SUBSCRIPTIONS`) while the others keep
 * running; queries are not subscriptions and still run; completing one frees its slot; another
 * socket has slots of its own. Engine-independent: SQLite only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openSocket, type Subscription } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const CAP = 3;
const POSTS = 'subscription { postCreated { title } }';

describe('subscriptions per socket', () => {
  let instance: TestApp;
  let url: string;
  let token: string;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET: String(CAP) } });
    url = `${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
    token = await instance.tokenFor((await instance.createUser()).user);
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite!.dropAll();
  });

  let posted = 0;
  /** Posts until every subscription has one more event than it had (each becomes active at its own pace). */
  async function deliveredToAll(subscriptions: readonly Subscription[]): Promise<void> {
    const before = subscriptions.map((subscription) => subscription.received.length);
    const deadline = Date.now() + 8_000;
    while (subscriptions.some((subscription, i) => subscription.received.length <= before[i]!)) {
      if (Date.now() > deadline) throw new Error('a subscription received nothing');
      const response = await instance.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: bearer(token),
        payload: { query: `mutation { createPost(title: "post ${++posted}", body: "text") { id } }` },
      });
      expect(json(response).errors).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('refuses the subscription over the cap with an error for its id, and keeps the others running', async () => {
    const socket = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    const admitted = Array.from({ length: CAP }, () => socket.subscribe(POSTS));
    await deliveredToAll(admitted);
    const refused = socket.subscribe(POSTS);
    await expect.poll(() => refused.ended()).toBe(true);
    expect(refused.errors()?.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(refused.received).toEqual([]);
    // The socket and its subscriptions go on; a query is no subscription and runs.
    await deliveredToAll(admitted);
    expect(admitted.every((subscription) => !subscription.ended())).toBe(true);
    expect(await socket.execute('{ posts(first: 1) { title } }')).toEqual({ data: { posts: [{ title: expect.any(String) }] } });
    expect(socket.isClosed()).toBe(false);
    await socket.dispose();
  });

  it('frees a slot when a subscription completes', async () => {
    const socket = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    const admitted = Array.from({ length: CAP }, () => socket.subscribe(POSTS));
    await deliveredToAll(admitted);
    admitted[0]!.stop();
    const next = socket.subscribe(POSTS);
    await deliveredToAll([next, ...admitted.slice(1)]);
    expect(next.errors()).toBeUndefined();
    const over = socket.subscribe(POSTS);
    await expect.poll(() => over.ended()).toBe(true);
    expect(over.errors()?.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    await socket.dispose();
  });

  it('counts per socket: a full socket leaves another socket its own slots', async () => {
    const full = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    const other = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    const onFull = Array.from({ length: CAP }, () => full.subscribe(POSTS));
    const onOther = Array.from({ length: CAP }, () => other.subscribe(POSTS));
    await deliveredToAll([...onFull, ...onOther]);
    expect([...onFull, ...onOther].every((subscription) => subscription.errors() === undefined)).toBe(true);
    await full.dispose();
    await other.dispose();
  });
});
