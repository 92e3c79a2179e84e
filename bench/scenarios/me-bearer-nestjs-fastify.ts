import type { Scenario } from '../lib/scenario.ts';

/** `GET /me` with a bearer token on the service's NestJS (platform-fastify) host, against bare NestJS (platform-fastify). */
export default {
  name: 'me-bearer-nestjs-fastify',
  description: 'Gatehouse on NestJS (platform-fastify) `GET /me`, bearer token (ratio to bare NestJS (platform-fastify))',
  target: 'gatehouse-nestjs-fastify',
  baseline: 'hello-bare-nestjs-fastify',
  path: '/me',
  headers: { authorization: 'Bearer {accessToken}' },
} satisfies Scenario;
