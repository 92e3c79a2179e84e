import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loggedPath } from '../../endpoints/logged-path.ts';

/**
 * One log line per response, with the path as `loggedPath` shows it (no query string, no
 * invitation code) and never a header value.
 */
async function requestLog(app: FastifyInstance): Promise<void> {
  // Decided once: below info level the hook is not even registered.
  if (!(app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info')) return;
  app.addHook('onResponse', async (request, reply) => {
    const path = loggedPath(request.url);
    request.log.info(
      { method: request.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });
}

export const requestLogPlugin = fp(requestLog, { name: 'gatehouse-request-log', fastify: '5.x' });
