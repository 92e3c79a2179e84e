import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './route-context.ts';

/** `GET /.well-known/jwks.json`: the public signing keys, so other services can verify tokens. */
export async function wellKnownRoutes(app: FastifyInstance, { services }: RouteContext): Promise<void> {
  app.get('/.well-known/jwks.json', { config: { authorization: { allowAnonymous: true } } }, async (_request, reply) =>
    reply.type('application/json').header('cache-control', 'public, max-age=60').send(services.keyRing.jwks),
  );
}
