import type { Scenario } from '../lib/scenario.ts';

/** The baseline: bare Fastify, no authentication. Every other scenario is reported as a ratio to it. */
export default {
  name: 'hello-bare',
  description: 'bare Fastify `GET /hello` (baseline)',
  target: 'bare',
  path: '/hello',
  headers: {},
} satisfies Scenario;
