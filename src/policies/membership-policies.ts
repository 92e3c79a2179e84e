import { ADMIN_ROLE } from '../identity/admin-role.ts';
import { AuthorizationPolicyBuilder } from '../security/authorization/index.ts';
import { OrganizationRequirementHandler } from '../organizations/organization-requirements.ts';
import { RoleGrantHandler } from './role-grant.ts';
import { UserSubjectRequirement } from './user-subject-requirement.ts';

/**
 * The policies of Gatehouse's own routes, as objects rather than names: they hold whatever the
 * application calls its policies, and whatever its fallback policy is.
 */
export const membershipPolicies = {
  /** A signed-in user (a principal with `sub`): API-key callers act for no user. */
  user: new AuthorizationPolicyBuilder().requireAuthenticatedUser().addRequirement(new UserSubjectRequirement()).build(),
  /** The admin API: role `Admin`. */
  admin: new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole(ADMIN_ROLE).build(),
  /** Any authenticated caller: the routes of Gatehouse that say nothing else. */
  authenticated: new AuthorizationPolicyBuilder().requireAuthenticatedUser().build(),
};

/** The handlers Gatehouse's own routes need, added to the application's. */
export const membershipHandlers = () => [new RoleGrantHandler(), new OrganizationRequirementHandler()];
