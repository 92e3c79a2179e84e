import type { Scenario } from '../lib/scenario.ts';

/** bench/README.md: `{ posts(first: 20) { id title } }` with a bearer token, over a store of 100 posts. */
export default {
  name: 'graphql-posts',
  description: 'Gatehouse `POST /graphql` `{ posts(first: 20) { id title } }`, bearer token, 100 posts stored',
  target: 'gatehouse',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ posts(first: 20) { id title } }' }),
} satisfies Scenario;
