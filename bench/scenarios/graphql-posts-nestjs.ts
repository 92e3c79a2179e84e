import type { Scenario } from '../lib/scenario.ts';

/** graphql-posts on the service's NestJS (platform-express) host, against bare NestJS (platform-express). */
export default {
  name: 'graphql-posts-nestjs',
  description: 'Gatehouse on NestJS (platform-express) `POST /graphql` `{ posts(first: 20) { id title } }`, bearer token, 100 posts stored (ratio to bare NestJS (platform-express))',
  target: 'gatehouse-nestjs',
  baseline: 'hello-bare-nestjs',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ posts(first: 20) { id title } }' }),
} satisfies Scenario;
