/**
 * GraphQL over HTTP (docs/reference/http.md and docs/reference/graphql.md; GraphQL-over-HTTP spec; SEC-100): what reaches
 * `/graphql` other than a well-formed GET or POST.
 *   - PUT, DELETE and PATCH are 405 with `Allow: GET, POST`, in the GraphQL error shape and the
 *     negotiated media type, decided before any body is read (a text/plain body is not a 415)
 *     and executing nothing; a mutation over GET stays 405 with `Allow: POST`.
 *   - A request member of the wrong type (`extensions`, `variables` not an object) is 400.
 *   - With `Accept: application/graphql-response+json`, a request error that leaves no `data`
 *     (a variable that cannot be coerced, a missing required variable) is 400; with
 *     application/json the same result stays 200 for older clients; a field error with `data` is
 *     200 in both.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe.runIf(sqlite)('GraphQL over HTTP: methods, member types, request errors', () => {
  const ctx = useTestApp(sqlite!);

  const post = (payload: unknown, accept?: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: '/graphql', headers: { ...(accept ? { accept } : {}), ...headers }, payload: payload as Record<string, unknown> });
  const body = (response: LightMyRequestResponse) => json<GraphQLBody>(response);

  function expectGraphQLError(response: LightMyRequestResponse, status: number, mediaType: string, label: string): void {
    expect(response.statusCode, label).toBe(status);
    expect(response.headers['content-type'], label).toBe(`${mediaType}; charset=utf-8`);
    const { errors, data } = body(response);
    expect(data, label).toBeUndefined();
    expect(errors, label).toEqual([{ message: expect.any(String), extensions: { code: expect.any(String) } }]);
  }

  it('answers PUT, DELETE and PATCH with 405, Allow: GET, POST, in the GraphQL error shape, executing nothing', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    const mutation = JSON.stringify({ query: 'mutation { createPost(title: "t", body: "b") { id } }' });
    for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
      for (const accept of [undefined, GRAPHQL_RESPONSE]) {
        const response = await ctx.app.inject({
          method,
          url: '/graphql',
          headers: { ...bearer(token), 'content-type': 'application/json', ...(accept ? { accept } : {}) },
          payload: mutation,
        });
        expectGraphQLError(response, 405, accept ?? 'application/json', `${method} ${accept ?? ''}`);
        expect(response.headers.allow).toBe('GET, POST');
        expect(response.headers['cache-control']).toBe('no-store');
      }
      // The method is refused before the body: a body no endpoint reads is not a 415 here.
      const text = await ctx.app.inject({ method, url: '/graphql', headers: { 'content-type': 'text/plain' }, payload: 'mutation { x }' });
      expect(text.statusCode, `${method} text/plain`).toBe(405);
    }
    const posts = await post({ query: '{ posts { id } }' });
    expect(body(posts).data).toEqual({ posts: [] });
  });

  it('keeps a mutation over GET at 405 with Allow: POST', async () => {
    const response = await ctx.app.inject({ url: `/graphql?query=${encodeURIComponent('mutation { deletePost(id: "1") }')}` });
    expectGraphQLError(response, 405, 'application/json', 'GET mutation');
    expect(response.headers.allow).toBe('POST');
  });

  it('refuses extensions and variables that are not objects with 400, over POST and GET', async () => {
    for (const extensions of ['persisted', 1, true, [1], ['a']]) {
      for (const accept of [undefined, GRAPHQL_RESPONSE]) {
        const response = await post({ query: '{ posts { id } }', extensions }, accept);
        expectGraphQLError(response, 400, accept ?? 'application/json', `extensions ${JSON.stringify(extensions)}`);
        expect(body(response).errors![0]!.message).toBe('extensions must be an object.');
      }
    }
    expectGraphQLError(await post({ query: '{ posts { id } }', variables: [1] }), 400, 'application/json', 'variables [1]');
    for (const extensions of ['%22persisted%22', '%5B1%5D', 'not-json']) {
      expectGraphQLError(await ctx.app.inject({ url: `/graphql?query=%7Bposts%7Bid%7D%7D&extensions=${extensions}` }), 400, 'application/json', `GET extensions=${extensions}`);
    }
    // An object, or null, is fine; a persisted query without its hash is not (Apollo's protocol: the hash must match the query).
    for (const extensions of [{}, { tracing: true }, null]) {
      expect((await post({ query: '{ posts { id } }', extensions })).statusCode, JSON.stringify(extensions)).toBe(200);
    }
    expect((await ctx.app.inject({ url: '/graphql?query=%7Bposts%7Bid%7D%7D&extensions=%7B%7D' })).statusCode).toBe(200);
    expect((await post({ query: '{ posts { id } }', extensions: { persistedQuery: { version: 1 } } })).statusCode).toBe(400);
  });

  it('answers a request error without data with 400 in application/graphql-response+json, and 200 in application/json', async () => {
    const requests: [string, Record<string, unknown>][] = [
      ['a variable that cannot be coerced', { query: 'query($n: Int) { posts(first: $n) { id } }', variables: { n: 'ten' } }],
      ['a missing required variable', { query: 'query($id: ID!) { post(id: $id) { id } }' }],
      ['a null required variable', { query: 'query($id: ID!) { post(id: $id) { id } }', variables: { id: null } }],
    ];
    for (const [label, request] of requests) {
      const strict = await post(request, GRAPHQL_RESPONSE);
      expect(strict.statusCode, label).toBe(400);
      expect(strict.headers['content-type'], label).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
      expect(body(strict), label).not.toHaveProperty('data');
      expect(body(strict).errors![0]!.extensions!.code, label).toBe('BAD_USER_INPUT');

      const legacy = await post(request, 'application/json');
      expect(legacy.statusCode, label).toBe(200);
      expect(body(legacy), label).not.toHaveProperty('data');
    }
  });

  it('keeps a field error that leaves data at 200 in both media types', async () => {
    for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
      // Anonymous createPost: UNAUTHENTICATED on the field, data null (a non-null root field).
      const anonymous = await post({ query: 'mutation { createPost(title: "t", body: "b") { id } }' }, accept);
      expect(anonymous.statusCode, accept).toBe(200);
      expect(body(anonymous).data, accept).toBeNull();
      expect(body(anonymous).errors![0]!.extensions!.code, accept).toBe('UNAUTHENTICATED');
      // An argument out of range: BAD_USER_INPUT from the resolver, with data.
      const outOfRange = await post({ query: '{ posts(first: 0) { id } }' }, accept);
      expect(outOfRange.statusCode, accept).toBe(200);
      expect(body(outOfRange), accept).toHaveProperty('data');
    }
  });
});
