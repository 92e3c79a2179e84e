import type { Scenario } from '../lib/scenario.ts';

/** graphql-posts on the service's Express host, against bare Express. */
export default {
  name: 'graphql-posts-express',
  description: 'Gatehouse on Express `POST /graphql` `{ posts(first: 20) { id title } }`, bearer token, 100 posts stored (ratio to bare Express)',
  target: 'gatehouse-express',
  baseline: 'hello-bare-express',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ posts(first: 20) { id title } }' }),
} satisfies Scenario;
