import type { Scenario } from '../lib/scenario.ts';

/** `GET /me` with a bearer token on the service's Hono host, against bare Hono. */
export default {
  name: 'me-bearer-hono',
  description: 'Gatehouse on Hono `GET /me`, bearer token (ratio to bare Hono)',
  target: 'gatehouse-hono',
  baseline: 'hello-bare-hono',
  path: '/me',
  headers: { authorization: 'Bearer {accessToken}' },
} satisfies Scenario;
