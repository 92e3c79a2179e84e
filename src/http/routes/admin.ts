import type { FastifyInstance } from 'fastify';
import { adminEndpoints } from '../../endpoints/admin/admin-endpoints.ts';
import type { AuditTrail } from '../../membership/audit-trail.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import { registerEndpoints } from '../endpoint-route.ts';

/** What the admin API calls: the administration of users and the audit trail. */
export interface AdminRouteUseCases {
  readonly users: UserAdministration;
  readonly auditTrail: AuditTrail;
}

/**
 * The admin API (endpoints/admin/admin-endpoints.ts) on Fastify, its endpoints in the group
 * `ADMIN_GROUP` (policy `AdminOnly`), which protects every route of it.
 */
export async function adminRoutes(app: FastifyInstance, { users, auditTrail }: AdminRouteUseCases): Promise<void> {
  await registerEndpoints(app, adminEndpoints({ users, auditTrail }));
}
