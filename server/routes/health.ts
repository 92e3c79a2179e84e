import type { FastifyInstance } from 'fastify';

/** `GET /health`: 200 with an empty body while the process serves. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/health', { config: { authorization: { allowAnonymous: true } } }, async (_request, reply) => reply.code(200).send());
}
