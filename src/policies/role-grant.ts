import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from '../security/authorization/index.ts';

/** The role an administrator grants to or takes from a user. */
export interface RoleGrant {
  readonly role: string;
}

/**
 * Roles that only their holders may grant or take away. `SuperAdmin` rules every organization
 * (docs/reference/http.md): an `Admin` who could grant it could make anyone, himself included, a
 * `SuperAdmin`. The CLI is the operator and grants it freely.
 */
export const HOLDER_MANAGED_ROLES: ReadonlySet<string> = new Set(['SuperAdmin']);

export function isRoleGrant(resource: unknown): resource is RoleGrant {
  return typeof resource === 'object' && resource !== null && typeof (resource as { role?: unknown }).role === 'string';
}

/** Met for any role but those in `HOLDER_MANAGED_ROLES`, which need the caller to hold the role. */
export class RoleGrantRequirement implements AuthorizationRequirement {
  readonly description = 'a holder of a role only its holders manage';
}

export class RoleGrantHandler extends ResourceRequirementHandler<RoleGrantRequirement, RoleGrant> {
  constructor() {
    super(RoleGrantRequirement, isRoleGrant);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: RoleGrantRequirement, grant: RoleGrant): void {
    const { user } = context;
    if (!user.isAuthenticated) return;
    if (!HOLDER_MANAGED_ROLES.has(grant.role) || user.isInRole(grant.role)) context.succeed(requirement);
  }
}
