import type { FastifyInstance } from 'fastify';
import { API_KEY_SCHEME } from 'gatehouse-auth';

/** `GET /integrations/whoami`: API-key callers only; answers the key's client name. */
export async function integrationRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/integrations/whoami',
    { config: { authorization: { authorize: [{ schemes: [API_KEY_SCHEME] }] } } },
    // Synchronous: nothing here waits, and a promise per request is not free.
    (request, reply) => {
      reply.send({ client: request.user.findFirst('client')?.value ?? null });
    },
  );
}
