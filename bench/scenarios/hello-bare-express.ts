import type { Scenario } from '../lib/scenario.ts';

/** The baseline of the service on Express: bare Express's `GET /hello` (servers/bare-express.ts). */
export default {
  name: 'hello-bare-express',
  description: 'bare Express `GET /hello` (the Express baseline)',
  target: 'bare-express',
  path: '/hello',
  headers: {},
} satisfies Scenario;
