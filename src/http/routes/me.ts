import type { FastifyInstance } from 'fastify';

/** `GET /me`: the caller's `Identity.Name` as text (empty for a principal without one). Fallback policy. */
export async function meRoutes(app: FastifyInstance): Promise<void> {
  app.get('/me', async (request, reply) => reply.type('text/plain; charset=utf-8').send(request.user.name ?? ''));
}
