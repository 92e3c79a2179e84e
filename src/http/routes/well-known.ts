import type { FastifyInstance } from 'fastify';
import type { KeyRing } from '../../tokens/key-ring.ts';

/** What the JWKS route reads: the key ring, whose public keys it serves. */
export interface WellKnownRouteOptions {
  readonly keyRing: Pick<KeyRing, 'jwks'>;
}

/** `GET /.well-known/jwks.json`: the public signing keys, so other services can verify tokens. */
export async function wellKnownRoutes(app: FastifyInstance, { keyRing }: WellKnownRouteOptions): Promise<void> {
  app.get('/.well-known/jwks.json', { config: { authorization: { allowAnonymous: true } } }, async (_request, reply) =>
    reply.type('application/json').header('cache-control', 'public, max-age=60').send(keyRing.jwks),
  );
}
