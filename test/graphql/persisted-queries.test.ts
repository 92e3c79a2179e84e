/**
 * Automatic persisted queries and trusted documents (docs/reference/graphql.md), from outside:
 * Apollo Client with its persisted-query link and urql with its persisted exchange, as
 * applications use them, against a listening instance over real HTTP, and the wire protocol by
 * hand for what the clients never send (a hash that does not match, a document over the limits).
 * Two instances sharing Redis know each other's registrations. With GRAPHQL_TRUSTED_DOCUMENTS,
 * only the listed documents run, over HTTP and over WebSocket, and a bad file stops the start.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { addTypenameToDocument, print } from '@apollo/client/utilities';
import { Client, fetchExchange } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import type { DocumentNode } from 'graphql';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { serviceArguments } from '../../bench/lib/gatehouse.ts';
import { redisAvailable, testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { projectRoot, runNode } from '../helpers/processes.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [engine] = await testEngines();
const withRedis = (await redisAvailable()) || process.env.REQUIRE_SERVICES === '1';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** A query no other test (nor an earlier run, through Redis) has registered. */
const freshQuery = () => `query Newest_${randomBytes(6).toString('hex')} { posts(first: 1) { id title } }`;

interface WireRequest {
  readonly method: string;
  readonly query: string | undefined;
  readonly hash: string | undefined;
}
interface WireAnswer {
  readonly status: number;
  readonly codes: string[];
  readonly hasData: boolean;
  readonly cacheControl: string | null;
  readonly type: string | null;
}

/** A fetch that records what a client sent and what it got, as the server saw it. */
function recordingFetch() {
  const exchanges: { request: WireRequest; answer: WireAnswer }[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = init?.method ?? 'GET';
    const sent = method === 'GET' ? { query: url.searchParams.get('query') ?? undefined, extensions: JSON.parse(url.searchParams.get('extensions') ?? '{}') } : JSON.parse(String(init?.body));
    const response = await fetch(input, init);
    const text = await response.text();
    const body = JSON.parse(text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
    exchanges.push({
      request: { method, query: sent.query ?? undefined, hash: sent.extensions?.persistedQuery?.sha256Hash },
      answer: { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code ?? ''), hasData: body.data !== undefined && body.data !== null, cacheControl: response.headers.get('cache-control'), type: response.headers.get('content-type') },
    });
    return new Response(text, { status: response.status, headers: response.headers });
  };
  return { fetcher, exchanges };
}

function apolloClient(url: string, fetcher: typeof fetch, { get = false } = {}) {
  const link = new PersistedQueryLink({ sha256, useGETForHashedQueries: get }).concat(new HttpLink({ uri: `${url}/graphql`, fetch: fetcher }));
  const client = new ApolloClient({ cache: new InMemoryCache(), link });
  return { query: ({ query }: { query: DocumentNode }) => client.query({ query, fetchPolicy: 'no-cache', errorPolicy: 'all' }) };
}

function urqlClient(url: string, fetcher: typeof fetch) {
  return new Client({
    url: `${url}/graphql`,
    fetch: fetcher,
    requestPolicy: 'network-only',
    exchanges: [persistedExchange({ generateHash: async (query) => sha256(query), preferGetForPersistedQueries: true }), fetchExchange],
  });
}

/** One POST of the wire protocol, as the clients send it. */
async function post(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = (await response.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };
  return { status: response.status, type: response.headers.get('content-type'), cacheControl: response.headers.get('cache-control'), ...json, codes: (json.errors ?? []).map((error) => error.extensions.code) };
}

const persisted = (hash: string, version = 1) => ({ persistedQuery: { version, sha256Hash: hash } });

const instances: TestApp[] = [];
async function listening(env: Record<string, string> = {}, databaseUrl?: string): Promise<{ url: string; app: TestApp }> {
  const app = await startTestApp(databaseUrl ?? (await engine!.createDatabaseUrl()), { env });
  instances.push(app);
  const url = await app.app.listen({ host: '127.0.0.1', port: 0 });
  return { url, app };
}
afterEach(async () => {
  await Promise.all(instances.splice(0).map((instance) => instance.close()));
});
afterAll(() => engine!.dropAll());

describe('automatic persisted queries', () => {
  it("Apollo Client's link: the hash alone is not found (200), the retry with the query runs, then the hash alone runs", async () => {
    const { url } = await listening();
    const { fetcher, exchanges } = recordingFetch();
    const client = apolloClient(url, fetcher);
    const query = gql(freshQuery());
    const first = await client.query({ query });
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual({ posts: [] });
    expect(exchanges.map(({ request, answer }) => [request.method, request.query !== undefined, answer.status, answer.codes])).toEqual([
      ['POST', false, 200, ['PERSISTED_QUERY_NOT_FOUND']],
      ['POST', true, 200, []],
    ]);
    // Answered 200 as Apollo Server does, and kept by no cache (the GET's URL would otherwise stay unknown).
    expect(exchanges[0]!.answer.cacheControl).toBe('no-store');
    expect(exchanges[1]!.request.hash).toBe(exchanges[0]!.request.hash);

    // A new client (a reload of the page) sends the hash alone, and the server knows it.
    const later = recordingFetch();
    const again = await apolloClient(url, later.fetcher).query({ query });
    expect(again.data).toEqual({ posts: [] });
    expect(later.exchanges.map(({ request, answer }) => [request.query !== undefined, answer.status, answer.codes, answer.hasData])).toEqual([[false, 200, [], true]]);
  });

  it("Apollo Client's link over GET (useGETForHashedQueries), with the application/graphql-response+json it accepts", async () => {
    const { url } = await listening();
    const { fetcher, exchanges } = recordingFetch();
    const client = apolloClient(url, fetcher, { get: true });
    const query = gql(freshQuery());
    expect((await client.query({ query })).data).toEqual({ posts: [] });
    expect((await client.query({ query })).data).toEqual({ posts: [] });
    expect(exchanges.map(({ request, answer }) => [request.method, request.query !== undefined, answer.status, answer.codes])).toEqual([
      ['GET', false, 200, ['PERSISTED_QUERY_NOT_FOUND']],
      ['POST', true, 200, []],
      ['GET', false, 200, []],
    ]);
    // Apollo Client 4 accepts application/graphql-response+json first: the miss is 200 in it too.
    expect(exchanges.map(({ answer }) => answer.type)).toEqual(Array(3).fill('application/graphql-response+json; charset=utf-8'));
  });

  it("urql's persisted exchange: a GET miss, the retry with the query, then GETs by hash", async () => {
    const { url } = await listening();
    const { fetcher, exchanges } = recordingFetch();
    const client = urqlClient(url, fetcher);
    const query = freshQuery();
    const first = await client.query(query, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual({ posts: [] });
    const second = await client.query(query, {}).toPromise();
    expect(second.data).toEqual({ posts: [] });
    expect(exchanges.map(({ request, answer }) => [request.method, request.query !== undefined, answer.codes])).toEqual([
      ['GET', false, ['PERSISTED_QUERY_NOT_FOUND']],
      ['GET', true, []],
      ['GET', false, []],
    ]);
  });

  it('refuses a query sent with a hash that is not its SHA-256 (400), and registers nothing under it', async () => {
    const { url } = await listening();
    const query = freshQuery();
    const wrong = sha256(`${query} `);
    const answer = await post(url, { query, extensions: persisted(wrong) });
    expect(answer.status).toBe(400);
    expect(answer.codes).toEqual(['BAD_REQUEST']);
    expect(answer.data).toBeUndefined();
    expect((await post(url, { extensions: persisted(wrong) })).codes).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });

  it('measures a document sent with its hash against the limits before it is stored: QUERY_TOO_COMPLEX, and the hash stays unknown', async () => {
    const { url } = await listening({ GRAPHQL_MAX_DEPTH: '3' });
    const deep = `query Deep_${randomBytes(6).toString('hex')} { posts { author { posts { author { id } } } } }`;
    const refused = await post(url, { query: deep, extensions: persisted(sha256(deep)) });
    expect(refused.status).toBe(400);
    expect(refused.codes).toEqual(['QUERY_TOO_COMPLEX']);
    const byHash = await post(url, { extensions: persisted(sha256(deep)) });
    expect(byHash.codes).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });

  it('answers another version with PERSISTED_QUERY_NOT_SUPPORTED, and a malformed hash with 400', async () => {
    const { url } = await listening();
    const query = freshQuery();
    const unsupported = await post(url, { query, extensions: persisted(sha256(query), 2) });
    expect(unsupported).toMatchObject({ status: 200, codes: ['PERSISTED_QUERY_NOT_SUPPORTED'], errors: [{ message: 'PersistedQueryNotSupported' }] });
    const malformed = await post(url, { extensions: persisted('not-a-hash') });
    expect(malformed).toMatchObject({ status: 400, codes: ['BAD_REQUEST'] });
    // Apollo's error shape, which the clients recognise by its message as well as its code.
    const unknown = await post(url, { extensions: persisted(sha256(freshQuery())) }, { accept: 'application/graphql-response+json' });
    expect(unknown).toMatchObject({ status: 200, errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    expect(unknown.type).toMatch(/^application\/graphql-response\+json/);
  });

  it.runIf(withRedis)('knows on a second instance sharing Redis a hash registered on the first', async () => {
    const first = await listening({ REDIS_URL });
    const second = await listening({ REDIS_URL }, first.app.databaseUrl);
    const query = gql(freshQuery());
    const a = recordingFetch();
    expect((await apolloClient(first.url, a.fetcher).query({ query })).data).toEqual({ posts: [] });
    expect(a.exchanges.map(({ answer }) => answer.codes)).toEqual([['PERSISTED_QUERY_NOT_FOUND'], []]);
    const b = recordingFetch();
    // The registration reaches Redis without the client waiting for it: the second instance knows it once it is there.
    await expect.poll(async () => (await post(second.url, { extensions: persisted(a.exchanges[0]!.request.hash!) })).codes).toEqual([]);
    expect((await apolloClient(second.url, b.fetcher).query({ query })).data).toEqual({ posts: [] });
    expect(b.exchanges.map(({ request, answer }) => [request.query !== undefined, answer.codes])).toEqual([[false, []]]);
  });

  it('keeps a bounded memory of registrations: a flood of distinct documents pushes out the oldest, and a huge one is run but not kept', async () => {
    const { url } = await listening();
    const padding = 'x'.repeat(60_000);
    const flood = Array.from({ length: 200 }, (_, at) => `query Flood_${at}_${randomBytes(4).toString('hex')}_${padding} { posts(first: 1) { id } }`);
    for (const query of flood) expect((await post(url, { query, extensions: persisted(sha256(query)) })).codes).toEqual([]);
    // 200 × 60 KB is more than this instance keeps (8 MB): the first are forgotten, the last known.
    expect((await post(url, { extensions: persisted(sha256(flood[0]!)) })).codes).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect((await post(url, { extensions: persisted(sha256(flood.at(-1)!)) })).codes).toEqual([]);
    const huge = `query Huge_${'y'.repeat(70_000)} { posts(first: 1) { id } }`;
    expect((await post(url, { query: huge, extensions: persisted(sha256(huge)) })).codes).toEqual([]);
    expect((await post(url, { extensions: persisted(sha256(huge)) })).codes).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });
});

describe('trusted documents', () => {
  const listed = 'query Listed { posts(first: 5) { id title } }';
  const subscription = 'subscription Created { postCreated { title } }';
  const create = 'mutation Create($title: String!) { createPost(title: $title, body: "text") { id } }';
  const directory = mkdtempSync(join(tmpdir(), 'gatehouse-trusted-'));
  // What Apollo Client sends for `listed` (printed, with __typename), as its manifest generator lists it.
  const listedByApollo = print(addTypenameToDocument(gql(listed)));
  const manifest = join(directory, 'documents.json');
  writeFileSync(manifest, JSON.stringify(Object.fromEntries([listed, listedByApollo, subscription, create].map((text) => [sha256(text), text]))));

  it('runs the listed documents by hash and by text, and refuses everything else with 400 PERSISTED_QUERY_NOT_FOUND', async () => {
    const { url } = await listening({ GRAPHQL_TRUSTED_DOCUMENTS: manifest });
    expect(await post(url, { extensions: persisted(sha256(listed)) })).toMatchObject({ status: 200, data: { posts: [] } });
    expect(await post(url, { query: listed })).toMatchObject({ status: 200, data: { posts: [] } });
    const other = freshQuery();
    for (const body of [{ query: other }, { extensions: persisted(sha256(other)) }, { query: other, extensions: persisted(sha256(other)) }]) {
      const answer = await post(url, body);
      expect(answer).toMatchObject({ status: 400, codes: ['PERSISTED_QUERY_NOT_FOUND'] });
      expect(answer.data).toBeUndefined();
    }
    // Nothing is registered in this mode: the hash is still refused after it came with its query.
    expect((await post(url, { extensions: persisted(sha256(other)) })).status).toBe(400);
    const byGet = await fetch(`${url}/graphql?query=${encodeURIComponent(other)}`);
    expect(byGet.status).toBe(400);
  });

  it("serves Apollo Client's persisted link the listed documents, and refuses it others", async () => {
    const { url } = await listening({ GRAPHQL_TRUSTED_DOCUMENTS: manifest });
    const { fetcher, exchanges } = recordingFetch();
    const client = apolloClient(url, fetcher);
    expect((await client.query({ query: gql(listed) })).data).toEqual({ posts: [] });
    expect(exchanges.map(({ request, answer }) => [request.query !== undefined, answer.status])).toEqual([[false, 200]]);
    const refused = await client.query({ query: gql(freshQuery()) });
    expect(refused.data).toBeUndefined();
    expect(exchanges.slice(1).map(({ answer }) => [answer.status, answer.codes])).toEqual([
      [400, ['PERSISTED_QUERY_NOT_FOUND']],
      [400, ['PERSISTED_QUERY_NOT_FOUND']],
    ]);
  });

  it('lets a socket subscribe with a listed document only', async () => {
    const { url, app } = await listening({ GRAPHQL_TRUSTED_DOCUMENTS: manifest });
    const { user } = await app.createUser();
    const token = await app.tokenFor(user);
    const socket = openSocket(`${url.replace('http', 'ws')}/graphql`, { connectionParams: { authorization: `Bearer ${token}` } });
    await socket.connected;
    const other = socket.subscribe('subscription Other { postCreated { id } }');
    await expect.poll(() => other.errors()).toBeDefined();
    expect(other.errors()!.map((error) => error.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    const queried = await socket.execute(freshQuery());
    expect(queried.errors?.map((error) => error.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(await socket.execute(listed)).toEqual({ data: { posts: [] } });
    const created = socket.subscribe(subscription);
    // The listed mutation, by hash, reaches the listed subscription.
    await expect
      .poll(async () => {
        await post(url, { operationName: 'Create', variables: { title: 'hello' }, extensions: persisted(sha256(create)) }, { authorization: `Bearer ${token}` });
        return created.received.length;
      })
      .toBeGreaterThan(0);
    expect(created.received[0]).toEqual({ data: { postCreated: { title: 'hello' } } });
    await socket.dispose();
  });

  it.each([
    ['a missing file', () => join(directory, 'missing.json')],
    ['a file that is not JSON', () => file('{"abc": ')],
    ['a key that is not the hash of its document', () => file(JSON.stringify({ [sha256('query A { posts { id } }')]: 'query B { posts { id } }' }))],
    ['a document that is not valid on the schema', () => file(JSON.stringify({ [sha256('{ nothing }')]: '{ nothing }' }))],
  ])('refuses to start with %s: exit 2, one line naming GRAPHQL_TRUSTED_DOCUMENTS', async (_what, path) => {
    const result = await runNode(serviceArguments(projectRoot), { PORT: '0', DATABASE_URL: await engine!.createDatabaseUrl(), GRAPHQL_TRUSTED_DOCUMENTS: path() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^gatehouse: GRAPHQL_TRUSTED_DOCUMENTS[^\n]*\n$/);
  });

  function file(text: string): string {
    const path = join(directory, `${randomBytes(4).toString('hex')}.json`);
    writeFileSync(path, text);
    return path;
  }
});
