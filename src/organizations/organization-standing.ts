import { ADMIN_ROLE } from '../identity/admin-role.ts';
import type { OrganizationMembership, User } from '../store/ports.ts';
import { ORG_ADMIN, ORG_OWNER, SUPER_ADMIN_ROLE } from './organization-roles.ts';

/**
 * What a signed-in user may do to one organization: read from the user's own (global) roles and
 * the stored membership of that organization, whatever organization is active. A principal's
 * `role` claims are never read here: they mix in the active organization's roles.
 */
export class OrganizationStanding {
  constructor(
    readonly user: User,
    /** The user's membership of this organization, or null. */
    readonly membership: OrganizationMembership | null,
  ) {}

  /** Acts on every organization. */
  get superAdmin(): boolean {
    return this.user.roles.includes(SUPER_ADMIN_ROLE);
  }

  /** Sees every organization (an `Admin` or a `SuperAdmin`), changing none unless a member. */
  get seesAll(): boolean {
    return this.superAdmin || this.user.roles.includes(ADMIN_ROLE);
  }

  get isMember(): boolean {
    return this.membership !== null;
  }

  /** Whether the organization's existence may be told: a member, or one who sees every organization. */
  get sees(): boolean {
    return this.isMember || this.seesAll;
  }

  /** An `OrgOwner` of it: every power of `OrgAdmin`, deletion, and the owner role's grants. */
  get owns(): boolean {
    return this.holds(ORG_OWNER) || this.superAdmin;
  }

  /** Manages members, roles, invitations and settings: `OrgAdmin` or `OrgOwner` of it, or `SuperAdmin`. */
  get manages(): boolean {
    return this.holds(ORG_ADMIN) || this.owns;
  }

  private holds(role: string): boolean {
    return this.membership?.roles.includes(role) ?? false;
  }
}
