import { buildSchema, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import { createStore } from '../store/create-store.ts';
import type { Store } from '../store/ports.ts';
import { AuthenticateResult, AuthenticationSchemeProvider, PolicyEvaluator } from '../security/authentication/index.ts';
import { AuthorizationService, PolicyProvider } from '../security/authorization/index.ts';
import { Authorizer, contextFactory, type GraphQLContext, type OperationContext } from './context.ts';
import { type GraphQLRequest, GraphQLService } from './graphql-service.ts';

/** The real context for a caller; these resolvers need nothing of the application's, nor any scheme. */
function contextFor(caller: ClaimsPrincipal): GraphQLContext & OperationContext {
  const authorization = new AuthorizationService();
  const none = { scheme: 'None', authenticate: () => AuthenticateResult.noResult(), challenge: () => ({}) };
  const evaluator = new PolicyEvaluator(new AuthenticationSchemeProvider([none], () => 'None'), authorization);
  return contextFactory(new Authorizer(authorization, new PolicyProvider({ policies: {} }), evaluator))(caller, { headers: {} });
}

/**
 * The result cache's rules, on a schema of its own: a resolver that reads the caller without any
 * policy in the schema (which the static check cannot see), one that fails, and a counter of
 * executions. The data version is a real SQLite store's.
 */
describe('GraphQLService result cache', () => {
  let store: Store;
  let executions = 0;
  let service: GraphQLService;

  const schema = (): GraphQLSchema => {
    const built = buildSchema('type Query { greeting: String  caller: String  broken: String }  type Mutation { touch: Int }');
    const fields = built.getQueryType()!.getFields();
    fields.greeting!.resolve = () => `hello ${++executions}`;
    fields.caller!.resolve = (_root, _args, context: GraphQLContext) => context.user.subject ?? 'anonymous';
    fields.broken!.resolve = () => {
      executions += 1;
      throw new Error('resolver failed');
    };
    built.getMutationType()!.getFields().touch!.resolve = () => ++executions;
    return built;
  };
  const principal = (subject: string) => new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', subject)], 'Bearer')]);
  const run = async (query: string, user = ClaimsPrincipal.anonymous()) => {
    const request: GraphQLRequest = { query };
    const prepared = service.prepare(request, ['query', 'mutation']);
    if (prepared.kind !== 'prepared') throw new Error(`refused: ${JSON.stringify(prepared.errors)}`);
    return JSON.parse((await service.execute(prepared, request, () => contextFor(user))).body) as { data: Record<string, unknown> };
  };

  beforeAll(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    service = new GraphQLService({
      schema: schema(),
      limits: { maxDepth: 10, maxAliases: 10, maxCost: 1000 },
      introspection: true,
      logger: createLogger({ level: 'silent' }),
      dataVersion: store.dataVersion,
    });
  });
  afterAll(() => store.close());

  it('answers a query that reads neither the caller nor fails from memory until the store changes', async () => {
    const first = await run('{ greeting }');
    expect(await run('{ greeting }', principal('7'))).toEqual(first);
    await store.users.create({ email: 'a@example.com', normalizedEmail: 'a@example.com', userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, roles: [], createdAt: 1 });
    expect(await run('{ greeting }')).not.toEqual(first);
  });

  it('keeps no answer a resolver computed from the caller, though no policy says so', async () => {
    expect((await run('{ caller }', principal('1'))).data).toEqual({ caller: '1' });
    expect((await run('{ caller }', principal('2'))).data).toEqual({ caller: '2' });
    expect((await run('{ caller }')).data).toEqual({ caller: 'anonymous' });
  });

  it('keeps no answer with errors, and runs every mutation', async () => {
    const before = executions;
    await run('{ broken }');
    await run('{ broken }');
    await run('mutation { touch }');
    await run('mutation { touch }');
    expect(executions - before).toBe(4);
  });
});

/**
 * The caches' bounds in bytes, keys included (decision 0030), read through the service's own
 * account of them: large distinct documents, variables the operation does not declare, and large
 * distinct variables it does.
 */
describe('GraphQLService caches bounded in bytes', () => {
  const MiB = 1024 * 1024;
  let store: Store;
  let executions = 0;
  let service: GraphQLService;

  const run = async (request: GraphQLRequest) => {
    const prepared = service.prepare(request, ['query']);
    if (prepared.kind !== 'prepared') throw new Error(`refused: ${JSON.stringify(prepared.errors)}`);
    const context = contextFor(ClaimsPrincipal.anonymous());
    return JSON.parse((await service.execute(prepared, request, () => context)).body) as { data: Record<string, unknown> };
  };

  beforeAll(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    const schema = buildSchema('type Query { greeting: String  echo(text: String): Int }');
    const fields = schema.getQueryType()!.getFields();
    fields.greeting!.resolve = () => `hello ${++executions}`;
    fields.echo!.resolve = (_root, args: { text?: string }) => args.text?.length ?? 0;
    service = new GraphQLService({ schema, limits: { maxDepth: 10, maxAliases: 10, maxCost: 1000 }, introspection: true, logger: createLogger({ level: 'silent' }), dataVersion: store.dataVersion });
  });
  afterAll(() => store.close());

  it('keeps parsed documents within 16 MiB, their text counted, and none of 0.9 MB at all', async () => {
    const repeated = '{ greeting }';
    const documentOf = () => (service.prepare({ query: repeated }, ['query']) as { document: unknown }).document;
    expect(documentOf()).toBe(documentOf());
    for (let i = 0; i < 100; i += 1) await run({ query: `{ greeting } # ${i} ${'x'.repeat(300_000)}` });
    const { documents } = service.cacheBytes();
    // About 0.9 MB each (the text as key, twice more as copies): full, and never over.
    expect(documents).toBeGreaterThan(12 * MiB);
    expect(documents).toBeLessThanOrEqual(16 * MiB);
    await run({ query: `{ greeting } # ${'y'.repeat(900_000)}` });
    expect(service.cacheBytes().documents).toBeLessThanOrEqual(documents);
  });

  it('answers a query from memory whatever unused variables come with it: they make no new key', async () => {
    const before = executions;
    for (let i = 0; i < 100; i += 1) await run({ query: '{ greeting }', variables: { [`unused${i}`]: `${i}${'u'.repeat(256 * 1024)}` } });
    expect(executions - before).toBe(1);
    expect(service.cacheBytes().results).toBeLessThan(1024);
  });

  it('keeps answers within 4 MiB, their keys counted: large distinct variables the query uses', async () => {
    for (let i = 0; i < 100; i += 1) {
      const text = `${i}`.padEnd(100_000, 'v');
      expect((await run({ query: 'query($t: String) { echo(text: $t) }', variables: { t: text } })).data).toEqual({ echo: 100_000 });
    }
    // The answers are a few bytes each: the keys are what fills the budget.
    expect(service.cacheBytes().results).toBeGreaterThan(3 * MiB);
    expect(service.cacheBytes().results).toBeLessThanOrEqual(4 * MiB);
  });
});

/**
 * A document runs on graphql-js the first time and on graphql-jit's compiled query from the second
 * on: the answers must not tell the two apart, a refused field and a request error included.
 */
describe('GraphQLService: first and later runs of a document', () => {
  const schema = buildSchema('type Query { me: String  posts(first: Int): [String!]!  broken: String }');
  const fields = schema.getQueryType()!.getFields();
  fields.me!.resolve = (_root, _args, context: GraphQLContext) => context.user.subject;
  fields.posts!.resolve = (_root, args: { first?: number | null }) => ['a', 'b', 'c'].slice(0, args.first ?? 3);
  fields.broken!.resolve = () => {
    throw new Error('resolver failed');
  };
  const service = new GraphQLService({
    schema,
    limits: { maxDepth: 10, maxAliases: 10, maxCost: 1000 },
    introspection: true,
    logger: createLogger({ level: 'silent' }),
  });
  const caller = new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '42')], 'Bearer')]);
  const run = async (request: GraphQLRequest) => {
    const prepared = service.prepare(request, ['query']);
    if (prepared.kind !== 'prepared') throw new Error(`refused: ${JSON.stringify(prepared.errors)}`);
    const executed = await service.execute(prepared, request, () => contextFor(caller));
    return { hasData: executed.hasData, body: JSON.parse(executed.body) as unknown };
  };

  it.each([
    ['the caller and a list', { query: '{ me posts(first: 2) }' }],
    ['a variable', { query: 'query($n: Int) { posts(first: $n) }', variables: { n: 1 } }],
    ['a variable that does not coerce', { query: 'query($n: Int) { posts(first: $n) }', variables: { n: 'many' } }],
    ['a resolver that fails', { query: '{ me broken }' }],
  ])('%s: the same answer each time', async (_name, request: GraphQLRequest) => {
    const first = await run(request);
    expect(await run(request)).toEqual(first);
    expect(await run(request)).toEqual(first);
  });

  it('answers a variable that does not coerce as a request error, with no data', async () => {
    const { hasData, body } = await run({ query: 'query($m: Int) { posts(first: $m) }', variables: { m: 'x' } });
    expect(hasData).toBe(false);
    expect(body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(body).not.toHaveProperty('data');
  });
});
