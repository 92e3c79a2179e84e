import type { FastifyInstance } from 'fastify';
import type { Clock } from 'gatehouse-auth';
import { createEvents, gatehouseGraphQL } from 'gatehouse-auth/graphql';
import type { Store } from 'gatehouse-auth/store';
import type { PostStore } from '../storage/post-store.ts';
import type { Logger } from 'pino';
import { postLoaders } from './post-loaders.ts';
import { Posts, type PostTopics } from './posts.ts';
import { postsResolvers, postsTypeDefs } from './posts-schema.ts';

export interface PostsGraphQLOptions {
  readonly store: Store;
  readonly posts: PostStore;
  readonly clock: Clock;
  /** New posts reach the subscribers of every instance through Redis when given. */
  readonly redisUrl?: string | null | undefined;
  readonly logger: Logger;
}

/**
 * The posts schema of docs/reference/graphql.md on `/graphql`: an application of gatehouse-auth/graphql
 * like any other, with its posts in Gatehouse's database (so answers every caller gets alike are
 * kept while the database is unchanged: `dataVersion`; so are the newest posts and the users its
 * resolvers read, for the answers that depend on the caller) and its events in memory or through Redis.
 */
export async function postsGraphQL(app: FastifyInstance, { store, posts: postStore, clock, redisUrl, logger }: PostsGraphQLOptions): Promise<void> {
  const events = createEvents<PostTopics>({ redisUrl, logger });
  const posts = new Posts({ store: postStore, events, clock, dataVersion: store.dataVersion });
  await app.register(gatehouseGraphQL, {
    typeDefs: postsTypeDefs,
    resolvers: postsResolvers(posts),
    context: postLoaders(store.users, posts, store.dataVersion),
    dataVersion: store.dataVersion,
    events,
  });
}
