import type { Scenario } from '../lib/scenario.ts';

/** `GET /health`: anonymous, no credentials read: the cost of the service's frame around a request. */
export default {
  name: 'health-gatehouse',
  description: 'Gatehouse `GET /health`, anonymous',
  target: 'gatehouse',
  path: '/health',
  headers: {},
} satisfies Scenario;
