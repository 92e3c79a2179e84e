import type { Scenario } from '../lib/scenario.ts';

/** The baseline of the service on NestJS (platform-fastify): one controller's `GET /hello` (servers/bare-nestjs.ts). */
export default {
  name: 'hello-bare-nestjs-fastify',
  description: 'bare NestJS (platform-fastify) `GET /hello` (the NestJS (platform-fastify) baseline)',
  target: 'bare-nestjs-fastify',
  path: '/hello',
  headers: {},
} satisfies Scenario;
