/**
 * Fragment bombs (SEC-95, decision 0030): an anonymous document of n fragments, each spreading
 * the next twice, expands to 2^n fields. Measured by expanding each spread, 24 fragments blocked
 * the event loop for seconds, each further one doubling that. Now each fragment is measured once,
 * so 30 and 200 fragments, and their variants (spread three times, mixed with inline fragments and
 * aliases, nested in introspection or in a list, through a variable's `first`, cycles, unknown
 * fragments, fragments on another type) are refused at once over POST, GET and a graphql-ws
 * `subscribe`, in development and in production, while `/health` keeps answering. The event
 * loop's delay is read from `monitorEventLoopDelay`: expanding even 30 fragments would hold it
 * for hours.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_URL: 'https://gatehouse.example', KEYRING_SECRET: 'a production secret of enough length for the ring', SMTP_URL: 'smtp://127.0.0.1:2525' };
/** Far above a refusal's few milliseconds, far below what expanding 2^30 fields takes. */
const MAX_EVENT_LOOP_DELAY_MS = 750;

interface Attack {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly code: 'QUERY_TOO_COMPLEX' | 'GRAPHQL_VALIDATION_FAILED';
}

/** Fragments F0 … F(n-1) on `type`, each holding `body(next)`; the last holds `leaf`. */
const fragments = (n: number, type: string, body: (next: string) => string, leaf: string) =>
  Array.from({ length: n }, (_, i) => `fragment F${i} on ${type}{${i === n - 1 ? leaf : body(`F${i + 1}`)}}`).join(' ');

function attacks(n: number): Record<string, Attack> {
  const twice = (next: string) => `...${next} ...${next}`;
  return {
    'spread twice': { query: `{...F0} ${fragments(n, 'Query', twice, '__typename')}`, code: 'QUERY_TOO_COMPLEX' },
    'spread three times': { query: `{...F0} ${fragments(n, 'Query', (f) => `...${f} ...${f} ...${f}`, '__typename')}`, code: 'QUERY_TOO_COMPLEX' },
    'mixed with inline fragments': { query: `{...F0} ${fragments(n, 'Query', (f) => `...${f} ...on Query{...${f}}`, '__typename')}`, code: 'QUERY_TOO_COMPLEX' },
    'with aliases': { query: `{...F0} ${fragments(n, 'Query', (f) => `a:__typename ...${f} ...${f}`, 'b:__typename')}`, code: 'QUERY_TOO_COMPLEX' },
    'inside __schema': { query: `{__schema{types{...F0}}} ${fragments(n, '__Type', twice, 'name')}`, code: 'QUERY_TOO_COMPLEX' },
    'inside __type': { query: `{__type(name:"Post"){...F0}} ${fragments(n, '__Type', twice, 'name')}`, code: 'QUERY_TOO_COMPLEX' },
    'inside a list with first': { query: `{posts(first:1){...F0}} ${fragments(n, 'Post', twice, 'id')}`, code: 'QUERY_TOO_COMPLEX' },
    'under a variable first': { query: `query($n:Int){posts(first:$n){...F0}} ${fragments(n, 'Post', twice, 'id')}`, variables: { n: 1 }, code: 'QUERY_TOO_COMPLEX' },
    'with a cycle back to the first': { query: `{...F0} ${fragments(n, 'Query', (f) => `...${f} ...${f} ...F0`, '__typename')}`, code: 'QUERY_TOO_COMPLEX' },
    'closing in a cycle': { query: `{...F0} ${fragments(n, 'Query', twice, '...F0')}`, code: 'GRAPHQL_VALIDATION_FAILED' },
    'with unknown fragments': { query: `{...F0} ${fragments(n, 'Query', (f) => `...${f} ...${f} ...Nowhere`, '__typename')}`, code: 'QUERY_TOO_COMPLEX' },
    'on another type': { query: `{...F0} ${fragments(n, 'Post', twice, 'id')}`, code: 'QUERY_TOO_COMPLEX' },
    'spread by no operation': { query: `{__typename} ${fragments(n, 'Query', twice, '__typename')}`, code: 'QUERY_TOO_COMPLEX' },
  };
}

describe.each([
  ['development', {}],
  ['production', PRODUCTION],
])('GraphQL fragment bombs in %s', (_mode, env: Record<string, string>) => {
  let instance: TestApp;
  let base: string;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), { env });
    base = await instance.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite!.dropAll();
  });

  async function overHttp(method: 'POST' | 'GET', attack: Attack): Promise<{ status: number; codes: string[] }> {
    const response =
      method === 'POST'
        ? await fetch(`${base}/graphql`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: attack.query, variables: attack.variables }) })
        : await fetch(`${base}/graphql?${new URLSearchParams({ query: attack.query, ...(attack.variables ? { variables: JSON.stringify(attack.variables) } : {}) })}`);
    const body = (await response.json()) as { errors?: { extensions: { code: string } }[] };
    return { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions.code) };
  }

  async function overSocket(attack: Attack): Promise<string[]> {
    const client = createClient({ url: `${base.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      return await new Promise<string[]>((resolve, reject) => {
        client.subscribe({ query: attack.query, ...(attack.variables ? { variables: attack.variables } : {}) }, {
          next: () => reject(new Error('the bomb was executed')),
          error: (error) => (Array.isArray(error) ? resolve(error.map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? '')) : reject(error)),
          complete: () => reject(new Error('the bomb completed')),
        });
      });
    } finally {
      await client.dispose();
    }
  }

  it.each([30, 200])('refuses %i fragments and every variant at once over POST, GET and a socket, while /health answers', async (n) => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const health: number[] = [];
    let attacking = true;
    const probe = (async () => {
      while (attacking) health.push((await fetch(`${base}/health`)).status);
    })();
    delay.enable();
    try {
      for (const [name, attack] of Object.entries(attacks(n))) {
        for (const method of ['POST', 'GET'] as const) {
          expect(await overHttp(method, attack), `${name} over ${method}`).toEqual({ status: 400, codes: [attack.code] });
        }
        expect(await overSocket(attack), `${name} over a socket`).toEqual([attack.code]);
      }
    } finally {
      attacking = false;
      await probe;
      delay.disable();
    }
    expect(delay.max / 1e6).toBeLessThan(MAX_EVENT_LOOP_DELAY_MS);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);
  });

  it('measures introspection too: a deep one is refused, GraphiQL’s own query passes in development', async () => {
    // __schema, types, fields and type four times, fields, name: 12 levels (the old measure saw none).
    const deep = { query: `{__schema{types{fields{type{fields{type{fields{type{fields{type{fields{name}}}}}}}}}}}}`, code: 'QUERY_TOO_COMPLEX' as const };
    expect(await overHttp('POST', deep)).toEqual({ status: 400, codes: ['QUERY_TOO_COMPLEX'] });
    const graphiql = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: getIntrospectionQuery({ inputValueDeprecation: true, schemaDescription: true }) }) });
    const body = (await graphiql.json()) as { data?: { __schema: unknown }; errors?: { extensions: { code: string } }[] };
    if (env.NODE_ENV === 'production') {
      expect(graphiql.status).toBe(400);
      expect(new Set(body.errors?.map((error) => error.extensions.code))).toEqual(new Set(['GRAPHQL_VALIDATION_FAILED']));
    } else {
      expect(graphiql.status).toBe(200);
      expect(body.data?.__schema).toBeTruthy();
    }
  });

  it('refuses copies of one field within the cost limit before validation compares them pair by pair', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    try {
      // 333 copies cost 999, and made graphql-js's validation compare 166,000 pairs (0.2–0.5 s here).
      const copies = { query: `{${'post(id:1){author{id}} '.repeat(333)}}`, code: 'QUERY_TOO_COMPLEX' as const };
      for (const method of ['POST', 'GET'] as const) expect(await overHttp(method, copies)).toEqual({ status: 400, codes: ['QUERY_TOO_COMPLEX'] });
      expect(await overSocket(copies)).toEqual(['QUERY_TOO_COMPLEX']);
    } finally {
      delay.disable();
    }
    expect(delay.max / 1e6).toBeLessThan(MAX_EVENT_LOOP_DELAY_MS);
  });

  it('refuses a document nested past the parser’s stack without telling what overflowed', async () => {
    // A list nested 4,990 deep stays under the token limit and overflows graphql-js's recursive
    // parser (even with twice Node's stack).
    const query = `{posts(first:${'['.repeat(4990)}${']'.repeat(4990)}){id}}`;
    const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(response.status).toBe(400);
    expect(body.errors.map((error) => error.extensions.code)).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(body.errors[0]!.message).not.toMatch(/call stack/i);
  });

  it('answers a small bomb, whose 64 copies of one field execution merges into one', async () => {
    const query = `{...F0} ${fragments(7, 'Query', (f) => `...${f} ...${f}`, '__typename')}`;
    const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
