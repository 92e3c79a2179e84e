import type { Scenario } from '../lib/scenario.ts';

/** The baseline of the service on NestJS (platform-express): one controller's `GET /hello` (servers/bare-nestjs.ts). */
export default {
  name: 'hello-bare-nestjs',
  description: 'bare NestJS (platform-express) `GET /hello` (the NestJS (platform-express) baseline)',
  target: 'bare-nestjs',
  path: '/hello',
  headers: {},
} satisfies Scenario;
