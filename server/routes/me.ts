import type { FastifyInstance } from 'fastify';

/** `GET /me`: the caller's `Identity.Name` as text (empty for a principal without one). Fallback policy. */
export async function meRoutes(app: FastifyInstance): Promise<void> {
  // A synchronous handler: nothing here waits, and a promise per request is not free.
  app.get('/me', (request, reply) => {
    reply.type('text/plain; charset=utf-8').send(request.user.name ?? '');
  });
}
