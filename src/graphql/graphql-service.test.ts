import { buildSchema, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import { createStore } from '../store/create-store.ts';
import type { Store } from '../store/ports.ts';
import type { Posts } from '../posts/posts.ts';
import { createContext, type GraphQLContext } from './context.ts';
import { type GraphQLRequest, GraphQLService } from './graphql-service.ts';

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
  // The real context; these resolvers need no loader of posts.
  const context = (user: ClaimsPrincipal) => createContext(user, store.users, null as unknown as Posts);
  const run = async (query: string, user = ClaimsPrincipal.anonymous()) => {
    const request: GraphQLRequest = { query };
    const prepared = service.prepare(request, ['query', 'mutation']);
    if (prepared.kind !== 'prepared') throw new Error(`refused: ${JSON.stringify(prepared.errors)}`);
    return JSON.parse((await service.execute(prepared, request, () => context(user))).body) as { data: Record<string, unknown> };
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
