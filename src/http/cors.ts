/**
 * CORS (docs/reference/configuration.md, `CORS_ORIGINS`): browsers on the listed origins may call
 * the API with credentials; others get no CORS headers at all (the plugin would otherwise allow
 * credentials to every origin it refuses). The request pipeline's "CORS" phase
 * (request-pipeline.ts): before authentication, so that a preflight, which carries no
 * credentials, is answered and a refusal still carries the headers the browser needs to read it.
 */
import fastifyCors from '@fastify/cors';
import type { ApplicationPhase } from './request-pipeline.ts';

export function corsPhase(origins: readonly string[]): ApplicationPhase {
  const listed = new Set(origins);
  return {
    scope: 'application',
    register: async (app) => {
      if (listed.size === 0) return;
      await app.register(fastifyCors, {
        delegator: (request, callback) =>
          callback(null, listed.has(request.headers.origin ?? '') ? { origin: true, credentials: true, maxAge: 600 } : { origin: false }),
      });
    },
  };
}
