import type { Scenario } from '../lib/scenario.ts';

/** `GET /me` with a bearer token on the service's Express host, against bare Express. */
export default {
  name: 'me-bearer-express',
  description: 'Gatehouse on Express `GET /me`, bearer token (ratio to bare Express)',
  target: 'gatehouse-express',
  baseline: 'hello-bare-express',
  path: '/me',
  headers: { authorization: 'Bearer {accessToken}' },
} satisfies Scenario;
