import type { FastifyInstance } from 'fastify';
import { passkeyScriptEndpoint } from '../../endpoints/passkeys/passkey-script-endpoint.ts';
import type { PasskeyScript } from '../../pages/passkeys/passkey-script.ts';
import { registerEndpoints } from '../endpoint-route.ts';

/** The passkey script of the login and profile pages (endpoints/passkeys/passkey-script-endpoint.ts) on Fastify. */
export async function passkeyScriptRoutes(app: FastifyInstance, { script }: { script: PasskeyScript }): Promise<void> {
  await registerEndpoints(app, [passkeyScriptEndpoint(script)]);
}
