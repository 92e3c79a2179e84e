import type { FastifyInstance } from 'fastify';
import type { Clock, Gatehouse } from 'gatehouse-auth';
import { createEvents, gatehouseGraphQL, type GatehouseGraphQLOptions, organizationFields } from 'gatehouse-auth/graphql';
import type { EventOutboxStore } from '../storage/event-outbox-store.ts';
import type { PostStore } from '../storage/post-store.ts';
import type { Logger } from 'pino';
import { RecentEvents } from './once-per-event.ts';
import { OutboxPublisher } from './outbox-publisher.ts';
import { Posts, type PostTopics } from './posts.ts';
import { type PostLoaders, postLoaders } from './post-loaders.ts';
import { postsResolvers, postsTypeDefs } from './posts-schema.ts';

export interface PostsGraphQLOptions {
  readonly posts: PostStore;
  readonly outbox: EventOutboxStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The posts schema's GraphQL options, and the event relay beside it, for any host. */
export interface PostsApi {
  readonly graphql: GatehouseGraphQLOptions<PostLoaders>;
  /** Starts the events and the outbox's relay, after the GraphQL endpoint is built. */
  start(): Promise<void>;
  /** Lets the relay's pass and last marks finish, then closes the events. */
  close(): Promise<void>;
}

/**
 * The posts schema of docs/reference/graphql.md: an application of gatehouse-auth/graphql like any
 * other, with its posts in Gatehouse's database (so answers every caller gets alike are kept while
 * the database is unchanged: `dataVersion`; so are the newest posts and the users its resolvers
 * read, for the answers that depend on the caller) and its events in memory, or through
 * Gatehouse's Redis connection when REDIS_URL is set (to every instance; while Redis is away, to
 * this instance's subscribers).
 */
export function postsApi(gatehouse: Gatehouse, { posts: postStore, outbox, clock, logger }: PostsGraphQLOptions): PostsApi {
  const { users, store } = gatehouse;
  const events = createEvents<PostTopics>({ redis: gatehouse.redis, logger });
  const publisher = new OutboxPublisher({ outbox, events, clock, logger });
  const posts = new Posts({ store: postStore, events, publisher, recent: new RecentEvents(), clock, dataVersion: store.dataVersion });
  return {
    graphql: {
      typeDefs: postsTypeDefs,
      resolvers: postsResolvers(posts, organizationFields(gatehouse.organizations)),
      context: postLoaders(users, posts, store.dataVersion),
      dataVersion: store.dataVersion,
    },
    start: async () => {
      await events.start();
      publisher.start();
    },
    close: async () => {
      await publisher.close();
      await events.close();
    },
  };
}

/** The posts API on `/graphql` of the Fastify service. */
export async function postsGraphQL(app: FastifyInstance, options: PostsGraphQLOptions): Promise<void> {
  const api = postsApi(app.gatehouse, options);
  await app.register(gatehouseGraphQL, api.graphql);
  // Started and closed here rather than by the plugin: the publisher's relay pass and last marks
  // finish before the events close (a child plugin's onClose hooks would run first).
  await api.start();
  app.addHook('onClose', () => api.close());
}
