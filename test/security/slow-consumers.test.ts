/**
 * SEC-128, slow consumers (docs/reference/graphql.md, "Limits of a socket"), with real sockets
 * against a listening instance: a socket that stops reading while its 100 subscriptions get posts
 * with 10 KB bodies is cut once its unsent data passes `GRAPHQL_MAX_SOCKET_BUFFER_BYTES` (the
 * default), its subscriptions and the socket itself gone while the client still reads nothing,
 * and another subscriber gets every post; a socket that floods the server with messages is closed
 * with 4429. What the server holds is read from outside, in `/metrics` (loopback, no token).
 * Engine-independent: SQLite only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openRawSocket, openSocket } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const POSTS = 'subscription { postCreated { id title body } }';
const BODY = 'x'.repeat(10_000);
/** More posts than it takes to fill the kernel's buffers of a loopback connection and the bound (1 MB a post to the paused socket). */
const MOST_POSTS = 60;

describe('slow consumers', () => {
  let instance: TestApp;
  let base: string;
  let url: string;
  let token: string;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { METRICS: 'true' } });
    base = await instance.app.listen({ host: '127.0.0.1', port: 0 });
    url = `${base.replace('http', 'ws')}/graphql`;
    token = await instance.tokenFor((await instance.createUser()).user);
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite!.dropAll();
  });

  /** One series of `GET /metrics`, as a loopback scraper reads it. */
  async function metric(series: string): Promise<number> {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    if (line === undefined) throw new Error(`no ${series} in the metrics`);
    return Number(line.slice(series.length + 1));
  }
  const metricBecomes = (series: string, value: number) => expect.poll(() => metric(series), { timeout: 10_000, interval: 50 }).toBe(value);

  let posted = 0;
  async function createPost(): Promise<string> {
    const title = `post ${++posted}`;
    const response = await instance.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(token),
      payload: { query: 'mutation($title: String!, $body: String!) { createPost(title: $title, body: $body) { id } }', variables: { title, body: BODY } },
    });
    expect(json(response).errors).toBeUndefined();
    return title;
  }

  it('cuts a socket that stops reading, with its subscriptions, while another subscriber gets every post', async () => {
    const steady = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    const received = steady.subscribe(POSTS);
    const paused = await openRawSocket(url, { authorization: `Bearer ${token}` });
    for (let id = 0; id < 100; id++) paused.send({ id: String(id), type: 'subscribe', payload: { query: POSTS } });
    await metricBecomes('gatehouse_graphql_subscriptions', 101);
    // The client reads nothing from now on: what the server sends it stays in the server.
    paused.ws.pause();

    const titles: string[] = [];
    while ((await metric('gatehouse_graphql_subscriptions')) > 1) {
      if (titles.length === MOST_POSTS) throw new Error(`the paused socket still had its subscriptions after ${MOST_POSTS} posts of 10 KB`);
      titles.push(await createPost());
      // Each post reached the steady subscriber, so it was delivered to the paused socket too.
      await received.receivedCount(titles.length);
    }
    // The socket itself is gone on the server while its client still reads nothing.
    await metricBecomes('gatehouse_graphql_sockets', 1);
    expect(paused.ws.readyState).toBe(paused.ws.OPEN);

    // The other subscriber got every post, in order, and goes on.
    titles.push(await createPost());
    await received.receivedCount(titles.length);
    expect(received.received.map((result) => (result.data?.postCreated as { title: string }).title)).toEqual(titles);
    expect(received.ended()).toBe(false);

    // Reading again, the client finds its socket closed: 4408 when the close frame got through, or cut.
    paused.ws.resume();
    const { code } = await paused.closed;
    expect([4408, 1006]).toContain(code);
    expect(paused.nexts()).toBeLessThan(100 * titles.length);
    await steady.dispose();
  });

  it('closes a socket that floods the server with messages with 4429, and leaves the others alone', async () => {
    const other = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    await other.connected;
    const flooding = await openRawSocket(url, { authorization: `Bearer ${token}` });
    // An application starts a subscription and ends it, a few thousand times at once.
    for (let id = 0; id < 2_000; id++) {
      flooding.send({ id: String(id), type: 'subscribe', payload: { query: POSTS } });
      flooding.send({ id: String(id), type: 'complete' });
    }
    expect(await flooding.closed).toEqual({ code: 4429, reason: expect.stringMatching(/too many/i) });
    expect(await other.execute('{ posts(first: 1) { title } }')).toEqual({ data: { posts: [{ title: expect.any(String) }] } });
    expect(other.isClosed()).toBe(false);
    await other.dispose();
  });

  it('lets a socket start its 100 subscriptions at once, and end and start them again', async () => {
    const socket = await openRawSocket(url, { authorization: `Bearer ${token}` });
    for (let id = 0; id < 100; id++) socket.send({ id: String(id), type: 'subscribe', payload: { query: POSTS } });
    for (let id = 0; id < 100; id++) socket.send({ id: String(id), type: 'complete' });
    for (let id = 100; id < 200; id++) socket.send({ id: String(id), type: 'subscribe', payload: { query: POSTS } });
    await metricBecomes('gatehouse_graphql_subscriptions', 100);
    let open = true;
    void socket.closed.then(() => (open = false));
    await createPost();
    await expect.poll(() => socket.nexts(), { timeout: 8_000 }).toBe(100);
    expect(open).toBe(true);
    socket.ws.close();
    await socket.closed;
  });
});
