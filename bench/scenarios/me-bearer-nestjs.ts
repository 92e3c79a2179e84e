import type { Scenario } from '../lib/scenario.ts';

/** `GET /me` with a bearer token on the service's NestJS (platform-express) host, against bare NestJS (platform-express). */
export default {
  name: 'me-bearer-nestjs',
  description: 'Gatehouse on NestJS (platform-express) `GET /me`, bearer token (ratio to bare NestJS (platform-express))',
  target: 'gatehouse-nestjs',
  baseline: 'hello-bare-nestjs',
  path: '/me',
  headers: { authorization: 'Bearer {accessToken}' },
} satisfies Scenario;
