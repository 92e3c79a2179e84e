import type { FastifyInstance } from 'fastify';
import { accountPasskeyEndpoints, type AccountPasskeyEndpointOptions } from '../../endpoints/passkeys/account-passkey-endpoints.ts';
import { registerEndpoints } from '../endpoint-route.ts';

/** What the signed-in user's passkeys use: the passkey use cases, the cookies (a removal re-issues the session), and the recent-sign-in rule. */
export type AccountPasskeyRouteOptions = AccountPasskeyEndpointOptions;

/** The signed-in user's passkeys (endpoints/passkeys/account-passkey-endpoints.ts) on Fastify. */
export async function accountPasskeyRoutes(app: FastifyInstance, options: AccountPasskeyRouteOptions): Promise<void> {
  await registerEndpoints(app, accountPasskeyEndpoints(options));
}
