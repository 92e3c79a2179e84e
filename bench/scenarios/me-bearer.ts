import type { Scenario } from '../lib/scenario.ts';

/** `GET /me` with the same bearer access token on every request. */
export default {
  name: 'me-bearer',
  description: 'Gatehouse `GET /me`, bearer token',
  target: 'gatehouse',
  path: '/me',
  headers: { authorization: 'Bearer {accessToken}' },
} satisfies Scenario;
