import type { FastifyInstance } from 'fastify';
import { jwksEndpoint } from '../../endpoints/tokens/jwks-endpoint.ts';
import type { KeyRing } from '../../tokens/key-ring.ts';
import { registerEndpoints } from '../endpoint-route.ts';

/** What the JWKS route reads: the key ring, whose public keys it serves. */
export interface WellKnownRouteOptions {
  readonly keyRing: Pick<KeyRing, 'jwks'>;
}

/** `GET /.well-known/jwks.json` (endpoints/tokens/jwks-endpoint.ts) on Fastify. */
export async function wellKnownRoutes(app: FastifyInstance, { keyRing }: WellKnownRouteOptions): Promise<void> {
  await registerEndpoints(app, [jwksEndpoint(keyRing)]);
}
