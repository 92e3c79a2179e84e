import { type Endpoint, inGroup } from '../endpoint.ts';
import { ADMIN_GROUP } from './admin-group.ts';
import { type AdminAuditUseCases, adminAuditEndpoint } from './audit-endpoint.ts';
import { type AdminUserUseCases, adminUserEndpoints } from './user-endpoints.ts';

export { ADMIN_GROUP } from './admin-group.ts';
export { type AdminSessionUseCases, adminSessionEndpoints } from './session-endpoints.ts';

/** What the admin API calls: the administration of users and the audit trail. */
export type AdminUseCases = AdminUserUseCases & AdminAuditUseCases;

/**
 * The admin API but its sessions (session-endpoints.ts, on only where sessions are listed): the
 * users and the audit trail. No endpoint says anything of its protection: all lie in
 * `ADMIN_GROUP` (role `Admin`), which every host honours.
 */
export function adminEndpoints(useCases: AdminUseCases): readonly Endpoint[] {
  return inGroup(ADMIN_GROUP, [...adminUserEndpoints(useCases), adminAuditEndpoint(useCases)]);
}
