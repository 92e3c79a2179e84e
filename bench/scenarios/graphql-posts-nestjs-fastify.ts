import type { Scenario } from '../lib/scenario.ts';

/** graphql-posts on the service's NestJS (platform-fastify) host, against bare NestJS (platform-fastify). */
export default {
  name: 'graphql-posts-nestjs-fastify',
  description: 'Gatehouse on NestJS (platform-fastify) `POST /graphql` `{ posts(first: 20) { id title } }`, bearer token, 100 posts stored (ratio to bare NestJS (platform-fastify))',
  target: 'gatehouse-nestjs-fastify',
  baseline: 'hello-bare-nestjs-fastify',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {accessToken}', 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ posts(first: 20) { id title } }' }),
} satisfies Scenario;
