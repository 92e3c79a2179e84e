import type { FastifyInstance } from 'fastify';
import { type AdminSessionUseCases, adminSessionEndpoints } from '../../endpoints/admin/session-endpoints.ts';
import { registerEndpoints } from '../endpoint-route.ts';

export type { AdminSessionUseCases } from '../../endpoints/admin/session-endpoints.ts';

/**
 * A user's sessions for the admin API (endpoints/admin/session-endpoints.ts) on Fastify, in
 * the group `ADMIN_GROUP` (policy `AdminOnly`) as every admin endpoint.
 */
export async function adminSessionRoutes(app: FastifyInstance, useCases: AdminSessionUseCases): Promise<void> {
  await registerEndpoints(app, adminSessionEndpoints(useCases));
}
