import type { FastifyInstance } from 'fastify';
import { passkeyLoginEndpoints, type PasskeyLoginEndpointOptions } from '../../endpoints/passkeys/passkey-login-endpoints.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { RateLimitDependencies } from '../rate-limit.ts';

/** What a passkey sign-in uses: its challenges, the sign-in's rules, the cookies, and the sign-in limits. */
export interface PasskeyLoginRouteOptions extends PasskeyLoginEndpointOptions, RateLimitDependencies {}

/** Sign-in with a passkey (endpoints/passkeys/passkey-login-endpoints.ts) on Fastify, with its sign-in limits. */
export async function passkeyLoginRoutes(app: FastifyInstance, options: PasskeyLoginRouteOptions): Promise<void> {
  await registerEndpoints(app, passkeyLoginEndpoints(options), { limits: options });
}
