import type { Scenario } from '../lib/scenario.ts';
import { ME_POSTS_QUERY } from './graphql-me-posts.ts';

/** The same request as `graphql-me-posts`, on a service whose database is a fresh PostgreSQL one. */
export default {
  name: 'graphql-me-posts-postgres',
  description: 'the same on PostgreSQL (a fresh database, `TEST_DATABASE_URL`\'s server)',
  target: 'gatehouse-postgres',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: ME_POSTS_QUERY }),
} satisfies Scenario;
