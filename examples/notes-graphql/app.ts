/**
 * The team's notes board, served as GraphQL: Gatehouse's membership and tokens under `/identity`,
 * the board's schema at `/graphql` (HTTP and graphql-ws), its events in memory or through Redis.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { PolicyName } from 'gatehouse-auth';
import { type Config, type createLogger, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { createEvents, type Events, gatehouseGraphQL } from 'gatehouse-auth/graphql';
import { createStore } from 'gatehouse-auth/store';
import { NoteBoard } from './note.ts';
import { notesHandlers, notesPolicies } from './policies.ts';
import { type BoardContext, type NoteTopics, notesResolvers, typeDefs } from './schema.ts';

/** Where Gatehouse's routes live: `/identity/auth/token`, `/identity/account/register`, … */
export const IDENTITY_PREFIX = '/identity';
export const GRAPHQL_PATH = '/graphql';

export interface NotesAppOptions {
  /** From `loadConfig()` (the environment) or `configFromSettings({ … })` (code). */
  readonly config: Config;
  readonly logger?: ReturnType<typeof createLogger>;
}

/** The application, Gatehouse's tables migrated, ready to listen (or to `inject` in tests). */
export async function buildNotesApp({ config, logger }: NotesAppOptions): Promise<FastifyInstance> {
  const store = await createStore(config.databaseUrl);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }

  const app = Fastify(serverOptions(config, logger));
  app.addHook('onClose', () => store.close());
  await app.register(gatehouse, {
    config,
    store,
    migrate: false,
    prefix: IDENTITY_PREFIX,
    policies: notesPolicies(),
    handlers: notesHandlers(),
  });

  // One instance: in memory. Several behind a balancer: REDIS_URL, so that a note added on one
  // reaches the subscribers of every other.
  const events: Events<NoteTopics> = createEvents<NoteTopics>({ redisUrl: config.redisUrl });
  const board = new NoteBoard();
  // PolicyName: `context.authorize` in the resolvers takes the declared names only.
  await app.register(gatehouseGraphQL<BoardContext, PolicyName>, {
    path: GRAPHQL_PATH,
    typeDefs,
    resolvers: notesResolvers(events, app.gatehouse.clock),
    context: () => ({ board }),
    events,
  });
  return app;
}
