import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * One log line per response, with the path but never the query string (codes and, from careless
 * clients, tokens travel there) and never a header value.
 */
async function requestLog(app: FastifyInstance): Promise<void> {
  // Decided once: below info level the hook is not even registered.
  if (!(app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info')) return;
  app.addHook('onResponse', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    request.log.info(
      { method: request.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });
}

export const requestLogPlugin = fp(requestLog, { name: 'gatehouse-request-log', fastify: '5.x' });
