import type { Scenario } from '../lib/scenario.ts';

/** graphql-posts on the service's Hono host, against bare Hono. */
export default {
  name: 'graphql-posts-hono',
  description: 'Gatehouse on Hono `POST /graphql` `{ posts(first: 20) { id title } }`, bearer token, 100 posts stored (ratio to bare Hono)',
  target: 'gatehouse-hono',
  baseline: 'hello-bare-hono',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ posts(first: 20) { id title } }' }),
} satisfies Scenario;
