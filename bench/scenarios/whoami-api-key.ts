import type { Scenario } from '../lib/scenario.ts';

/** `GET /integrations/whoami` with the same API key on every request. */
export default {
  name: 'whoami-api-key',
  description: 'Gatehouse `GET /integrations/whoami`, API key',
  target: 'gatehouse',
  path: '/integrations/whoami',
  headers: { 'x-api-key': '{apiKey}' },
} satisfies Scenario;
