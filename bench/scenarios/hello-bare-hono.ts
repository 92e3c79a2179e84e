import type { Scenario } from '../lib/scenario.ts';

/** The baseline of the service on Hono: bare Hono's `GET /hello` (servers/bare-hono.ts). */
export default {
  name: 'hello-bare-hono',
  description: 'bare Hono `GET /hello` (the Hono baseline)',
  target: 'bare-hono',
  path: '/hello',
  headers: {},
} satisfies Scenario;
