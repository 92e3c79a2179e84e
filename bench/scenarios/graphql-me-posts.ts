import type { Scenario } from '../lib/scenario.ts';

/**
 * The caller and the newest twenty posts: an answer that depends on who asks, so the result cache
 * (decision 0024) cannot serve it whole.
 */
export const ME_POSTS_QUERY = '{ me { id } posts(first: 20) { id title } }';

/** bench/README.md, "A query that depends on the caller": on SQLite, the service's own database. */
export default {
  name: 'graphql-me-posts',
  description: 'Gatehouse `POST /graphql` `{ me { id } posts(first: 20) { id title } }`, bearer token, 100 posts stored, SQLite',
  target: 'gatehouse',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: ME_POSTS_QUERY }),
} satisfies Scenario;
