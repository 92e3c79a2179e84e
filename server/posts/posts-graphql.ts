import type { FastifyInstance } from 'fastify';
import type { Clock } from 'gatehouse-auth';
import { createEvents, gatehouseGraphQL } from 'gatehouse-auth/graphql';
import type { EventOutboxStore } from '../storage/event-outbox-store.ts';
import type { PostStore } from '../storage/post-store.ts';
import type { Logger } from 'pino';
import { RecentEvents } from './once-per-event.ts';
import { OutboxPublisher } from './outbox-publisher.ts';
import { postLoaders } from './post-loaders.ts';
import { Posts, type PostTopics } from './posts.ts';
import { postsResolvers, postsTypeDefs } from './posts-schema.ts';

export interface PostsGraphQLOptions {
  readonly posts: PostStore;
  readonly outbox: EventOutboxStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The posts schema of docs/reference/graphql.md on `/graphql`: an application of gatehouse-auth/graphql
 * like any other, with its posts in Gatehouse's database (so answers every caller gets alike are
 * kept while the database is unchanged: `dataVersion`; so are the newest posts and the users its
 * resolvers read, for the answers that depend on the caller) and its events in memory, or through
 * Gatehouse's Redis connection when REDIS_URL is set (to every instance; while Redis is away, to
 * this instance's subscribers).
 */
export async function postsGraphQL(app: FastifyInstance, options: PostsGraphQLOptions): Promise<void> {
  const { posts: postStore, outbox, clock, logger } = options;
  const { users, store } = app.gatehouse;
  const events = createEvents<PostTopics>({ redis: app.gatehouse.redis, logger });
  const publisher = new OutboxPublisher({ outbox, events, clock, logger });
  const posts = new Posts({ store: postStore, events, publisher, recent: new RecentEvents(), clock, dataVersion: store.dataVersion });
  await app.register(gatehouseGraphQL, {
    typeDefs: postsTypeDefs,
    resolvers: postsResolvers(posts),
    context: postLoaders(users, posts, store.dataVersion),
    dataVersion: store.dataVersion,
  });
  // Started and closed here rather than by the plugin: the publisher's relay pass and last marks
  // finish before the events close (a child plugin's onClose hooks would run first).
  await events.start();
  publisher.start();
  app.addHook('onClose', async () => {
    await publisher.close();
    await events.close();
  });
}
