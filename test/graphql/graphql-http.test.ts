/**
 * GraphQL over HTTP (docs/reference/graphql.md), black-box on both engines: anonymous reads, authenticated
 * writes, resource checks for authors and admins, the field policy of `User.email`, the error
 * codes and statuses, media types, batching, GET, and the document limits.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';
import { inSeparateProcesses } from '../contracts/separate-processes.ts';

const engines = await testEngines();

interface GraphQLBody {
  data?: Record<string, any> | null;
  errors?: { message: string; path?: (string | number)[]; extensions: { code: string } }[];
}

describe.each(engines)('GraphQL over HTTP on $engine', (engine) => {
  const queries = { count: 0 };
  // Queries of posts and users only: the revocation feed polls its own table meanwhile.
  const counted = /"(posts|users|user_roles|user_claims)"/;
  const ctx = useTestApp(engine, { storeLog: (event) => void (event.level === 'query' && counted.test(event.query.sql) && (queries.count += 1)) });

  const gql = (query: string, options: { token?: string; headers?: Record<string, string>; variables?: Record<string, unknown> } = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...(options.token ? bearer(options.token) : {}), ...options.headers },
      payload: { query, ...(options.variables ? { variables: options.variables } : {}) },
    });
  const body = (response: LightMyRequestResponse) => json<GraphQLBody>(response);
  const codes = (response: LightMyRequestResponse) => (body(response).errors ?? []).map((error) => error.extensions.code);

  async function author(roles: string[] = []) {
    const { user } = await ctx.createUser({ roles });
    return { user, token: await ctx.tokenFor(user) };
  }
  async function createPost(token: string, title = 'Hello', text = 'World') {
    const response = await gql('mutation($t: String!, $b: String!) { createPost(title: $t, body: $b) { id title authorId } }', { token, variables: { t: title, b: text } });
    expect(response.statusCode).toBe(200);
    expect(body(response).errors).toBeUndefined();
    return body(response).data!.createPost as { id: string; title: string; authorId: string };
  }

  it('lets anyone read posts, newest first, with their authors', async () => {
    const { user, token } = await author();
    await createPost(token, 'first');
    await createPost(token, 'second');
    const response = await gql('{ posts(first: 2) { title author { id userName } } }');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(body(response).data!.posts).toEqual([
      { title: 'second', author: { id: String(user.id), userName: user.userName } },
      { title: 'first', author: { id: String(user.id), userName: user.userName } },
    ]);
  });

  it('answers createPost anonymously with UNAUTHENTICATED, and creates it for a signed-in user', async () => {
    const anonymous = await gql('mutation { createPost(title: "x", body: "y") { id } }');
    expect(anonymous.statusCode).toBe(200);
    expect(body(anonymous).data).toBeNull();
    expect(codes(anonymous)).toEqual(['UNAUTHENTICATED']);
    const { user, token } = await author();
    const created = await createPost(token, 'mine');
    expect(created).toMatchObject({ title: 'mine', authorId: String(user.id) });
  });

  it('refuses createPost to an API-key caller with FORBIDDEN', async () => {
    const key = await ctx.apiKey();
    const response = await gql('mutation { createPost(title: "x", body: "y") { id } }', { headers: { 'x-api-key': key } });
    expect(codes(response)).toEqual(['FORBIDDEN']);
  });

  it('lets the author and an Admin update or delete a post, and refuses others with FORBIDDEN', async () => {
    const writer = await author();
    const other = await author();
    const admin = await author(['Admin']);
    const post = await createPost(writer.token);
    const update = (token: string, title: string) => gql(`mutation { updatePost(id: "${post.id}", title: "${title}") { title } }`, { token });
    const refused = await update(other.token, 'hijacked');
    expect(codes(refused)).toEqual(['FORBIDDEN']);
    expect(body(refused).data).toBeNull();
    expect(body(await update(writer.token, 'edited')).data!.updatePost.title).toBe('edited');
    expect(body(await update(admin.token, 'moderated')).data!.updatePost.title).toBe('moderated');
    expect(codes(await gql(`mutation { deletePost(id: "${post.id}") }`, { token: other.token }))).toEqual(['FORBIDDEN']);
    expect(body(await gql(`mutation { deletePost(id: "${post.id}") }`, { token: admin.token })).data!.deletePost).toBe(true);
    expect(codes(await gql(`mutation { deletePost(id: "${post.id}") }`, { token: admin.token }))).toEqual(['NOT_FOUND']);
  });

  it('challenges an anonymous change before looking the post up: UNAUTHENTICATED for any id, NOT_FOUND only for a signed-in caller', async () => {
    const writer = await author();
    const post = await createPost(writer.token);
    for (const id of [post.id, '999999']) {
      expect(codes(await gql(`mutation { updatePost(id: "${id}", title: "t") { title } }`))).toEqual(['UNAUTHENTICATED']);
      expect(codes(await gql(`mutation { deletePost(id: "${id}") }`))).toEqual(['UNAUTHENTICATED']);
    }
    expect(codes(await gql('mutation { deletePost(id: "999999") }', { token: writer.token }))).toEqual(['NOT_FOUND']);
  });

  it('shows User.email to the user and to Admins only; for others it is null with FORBIDDEN while the rest resolves', async () => {
    const writer = await author();
    const other = await author();
    const admin = await author(['Admin']);
    await createPost(writer.token);
    const query = '{ posts(first: 1) { title author { userName email } } }';
    const asOther = body(await gql(query, { token: other.token }));
    expect(asOther.data!.posts[0]).toEqual({ title: 'Hello', author: { userName: writer.user.userName, email: null } });
    expect(asOther.errors).toEqual([expect.objectContaining({ path: ['posts', 0, 'author', 'email'], extensions: { code: 'FORBIDDEN' } })]);
    const anonymous = body(await gql(query));
    expect(anonymous.errors!.map((error) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);
    expect(body(await gql(query, { token: writer.token })).data!.posts[0].author.email).toBe(writer.user.email);
    expect(body(await gql(query, { token: admin.token })).data!.posts[0].author.email).toBe(writer.user.email);
    expect(body(await gql('{ me { email } }', { token: other.token })).data!.me.email).toBe(other.user.email);
    expect(body(await gql('{ me { id } }')).data!.me).toBeNull();
  });

  it('loads authors and their posts with as many queries for 16 posts as for 8 (no N+1)', async () => {
    const writers = await Promise.all([author(), author(), author(), author()]);
    const query = '{ posts(first: 16) { title author { id posts(first: 4) { title author { id } } } } }';
    const queriesFor = async () => {
      const before = queries.count;
      const response = await gql(query);
      expect(body(response).errors).toBeUndefined();
      return { queries: queries.count - before, posts: (body(response).data!.posts as unknown[]).length };
    };
    for (const writer of writers) for (const title of ['a', 'b']) await createPost(writer.token, title);
    const eight = await queriesFor();
    for (const writer of writers) for (const title of ['c', 'd']) await createPost(writer.token, title);
    const sixteen = await queriesFor();
    expect([eight.posts, sixteen.posts]).toEqual([8, 16]);
    expect(eight.queries).toBeGreaterThan(0);
    expect(sixteen.queries).toBe(eight.queries);
    // The posts, their authors (user, roles, claims) and the authors' posts: five queries.
    expect(sixteen.queries).toBeLessThanOrEqual(5);
  });

  it('answers a repeated query that is the same for every caller from memory on SQLite, never stale', async () => {
    const writer = await author();
    const { id } = await createPost(writer.token, 'kept');
    const query = '{ posts(first: 3) { id title author { userName } } }';
    const titles = async (token?: string) => (body(await gql(query, token ? { token } : {})).data!.posts as { title: string }[]).map((post) => post.title);
    expect(await titles()).toEqual(['kept']);
    const before = queries.count;
    expect(await titles(writer.token)).toEqual(['kept']); // another caller, the same answer
    // PostgreSQL cannot tell that nothing changed without asking, so it reads again.
    if (engine.engine === 'sqlite') expect(queries.count).toBe(before);
    else expect(queries.count).toBeGreaterThan(before);

    await createPost(writer.token, 'through the API');
    expect(await titles()).toEqual(['through the API', 'kept']);
    // Another process on the same database: a second instance, or the CLI.
    await inSeparateProcesses(1, ctx.databaseUrl, `await store.database.kysely().updateTable('posts').set({ title: 'renamed elsewhere' }).where('id', '=', ${id}).execute();`);
    expect(await titles()).toEqual(['through the API', 'renamed elsewhere']);
  });

  it('keeps no answer that depends on the caller', async () => {
    const [writer, other] = [await author(), await author()];
    await createPost(writer.token, 'mine');
    const query = '{ posts(first: 1) { author { email } } me { id } }';
    const seen = async (token: string) => body(await gql(query, { token })).data!;
    expect(await seen(writer.token)).toEqual({ posts: [{ author: { email: writer.user.email } }], me: { id: String(writer.user.id) } });
    expect(await seen(other.token)).toEqual({ posts: [{ author: { email: null } }], me: { id: String(other.user.id) } });
    expect(await seen(writer.token)).toEqual({ posts: [{ author: { email: writer.user.email } }], me: { id: String(writer.user.id) } });
  });

  it('refuses an invalid bearer token with 401 problem+json before execution', async () => {
    const response = await gql('{ posts { id } }', { token: 'not.a.token' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('validates input: empty or long titles, first outside 1–100, are BAD_USER_INPUT, never a 500', async () => {
    const { token } = await author();
    for (const [title, text] of [['', 'y'], ['x'.repeat(201), 'y'], ['x', ''], ['x', 'y'.repeat(10_001)]]) {
      const response = await gql('mutation($t: String!, $b: String!) { createPost(title: $t, body: $b) { id } }', { token, variables: { t: title, b: text } });
      expect(response.statusCode).toBe(200);
      expect(codes(response)).toEqual(['BAD_USER_INPUT']);
    }
    for (const first of [0, 101, -1]) expect(codes(await gql(`{ posts(first: ${first}) { id } }`))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await gql('{ posts(first: 100) { id } }'))).toEqual([]);
    expect(codes(await gql('{ me { posts(first: 0) { id } } }', { token }))).toEqual(['BAD_USER_INPUT']);
  });

  it('answers parse and validation errors with 400 in the GraphQL error shape', async () => {
    const parse = await gql('{ posts { id ');
    expect(parse.statusCode).toBe(400);
    expect(codes(parse)).toEqual(['GRAPHQL_PARSE_FAILED']);
    const invalid = await gql('{ posts { nope } }');
    expect(invalid.statusCode).toBe(400);
    expect(codes(invalid)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('refuses batches with 400, serves queries over GET, and refuses mutations over GET with 405', async () => {
    const batch = await ctx.app.inject({ method: 'POST', url: '/graphql', payload: [{ query: '{ posts { id } }' }] });
    expect(batch.statusCode).toBe(400);
    expect(body(batch).errors![0]!.extensions.code).toBeDefined();
    const get = await ctx.app.inject({ url: `/graphql?query=${encodeURIComponent('{ posts { id } }')}` });
    expect(get.statusCode).toBe(200);
    expect(body(get).data).toEqual({ posts: expect.any(Array) });
    const mutation = await ctx.app.inject({ url: `/graphql?query=${encodeURIComponent('mutation { deletePost(id: "1") }')}` });
    expect(mutation.statusCode).toBe(405);
    expect(body(mutation).errors).toHaveLength(1);
  });

  it('serves GraphiQL in development, pointed at /graphql', async () => {
    const page = await ctx.app.inject({ url: '/graphiql' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    // The start-up script is a file of the service: the page has no inline script to allow.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.body).toMatch(/<script src="\/graphiql\/assets\/graphiql-start\.[0-9a-f]{12}\.js"><\/script>/);
    expect(page.body).not.toMatch(/https?:\/\//);
    const policy = page.headers['content-security-policy'];
    expect(policy).toContain("script-src 'self';");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(policy).toContain("connect-src 'self'");
  });

  it('answers in application/graphql-response+json when the client accepts it', async () => {
    const response = await gql('{ posts { id } }', { headers: { accept: 'application/graphql-response+json, application/json;q=0.9' } });
    expect(response.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const refused = await gql('{ nope }', { headers: { accept: 'application/graphql-response+json' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
  });

  it('rejects depth, alias and cost bombs with QUERY_TOO_COMPLEX before validation', async () => {
    // posts → author → posts …: eleven nested selection sets, one more than GRAPHQL_MAX_DEPTH.
    const fields = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'posts(first: 1)' : 'author'));
    const deep = `{ ${fields.join(' { ')} { id }${' }'.repeat(fields.length - 1)} }`;
    const limitDeep = `{ ${fields.slice(0, 9).join(' { ')} { id }${' }'.repeat(8)} }`;
    expect(codes(await gql(limitDeep))).toEqual([]);
    expect(codes(await gql(deep))).toEqual(['QUERY_TOO_COMPLEX']);
    const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: posts(first: 1) { id }`).join(' ')} }`;
    expect(codes(await gql(aliases))).toEqual(['QUERY_TOO_COMPLEX']);
    const costly = '{ posts(first: 100) { author { posts(first: 100) { id } } } }';
    const response = await gql(costly);
    expect(response.statusCode).toBe(400);
    expect(codes(response)).toEqual(['QUERY_TOO_COMPLEX']);
    // Invalid fields in a bomb: the limit answers first, as the document is measured before validation.
    expect(codes(await gql(deep.replace('{ id }', '{ nope }')))).toEqual(['QUERY_TOO_COMPLEX']);
    // Variables count with their values.
    const byVariable = 'query($n: Int) { posts(first: $n) { author { posts(first: $n) { id } } } }';
    expect(codes(await gql(byVariable, { variables: { n: 5 } }))).toEqual([]);
    expect(codes(await gql(byVariable, { variables: { n: 40 } }))).toEqual(['QUERY_TOO_COMPLEX']);
  });
});

describe.each(engines)('GraphQL in production on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { NODE_ENV: 'production', PUBLIC_URL: 'https://gatehouse.example', KEYRING_SECRET: 'a production secret of enough length for the ring', SMTP_URL: 'smtp://127.0.0.1:2525' } });

  it('serves no GraphiQL', async () => {
    expect((await ctx.app.inject({ url: '/graphiql' })).statusCode).toBe(404);
  });

  it('refuses introspection', async () => {
    const response = await ctx.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __schema { types { name } } }' } });
    expect(response.statusCode).toBe(400);
    expect(json<GraphQLBody>(response).errors![0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
