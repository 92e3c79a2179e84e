import type { Endpoint } from '../endpoint.ts';
import { type AdminAuditUseCases, adminAuditEndpoint } from './audit-endpoint.ts';
import { type AdminUserUseCases, adminUserEndpoints } from './user-endpoints.ts';

export { ADMIN_GROUP } from './admin-group.ts';
export { type AdminSessionUseCases, adminSessionEndpoints } from './session-endpoints.ts';

/** What the admin API calls: the administration of users and the audit trail. */
export type AdminUseCases = AdminUserUseCases & AdminAuditUseCases;

/**
 * The admin API but its sessions (session-endpoints.ts, on only where sessions are listed): the
 * users and the audit trail. Every endpoint says nothing of its protection: it lies in
 * `ADMIN_GROUP` (role `Admin`) on every host.
 */
export function adminEndpoints(useCases: AdminUseCases): readonly Endpoint[] {
  return [...adminUserEndpoints(useCases), adminAuditEndpoint(useCases)];
}
