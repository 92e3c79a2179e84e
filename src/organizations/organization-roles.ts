/**
 * The roles a member holds in an organization. They come from a declared set, so that a name in a
 * request can be refused (400) rather than created, and none of them is ever a global role of the
 * service: a member's organization roles travel as `role` claims beside the user's own, and a
 * global policy (`Admin`, `SuperAdmin`) must never be opened from inside an organization.
 */

/** Manages the organization, may delete it, and alone grants, invites with or removes `OrgOwner`. */
export const ORG_OWNER = 'OrgOwner';
/** Manages the organization: its members, their roles, its invitations and settings. */
export const ORG_ADMIN = 'OrgAdmin';
export const ORG_MEMBER = 'OrgMember';

/** The roles every organization has, whatever `ORGANIZATION_ROLES` adds. */
export const BUILT_IN_ORGANIZATION_ROLES: readonly string[] = Object.freeze([ORG_OWNER, ORG_ADMIN, ORG_MEMBER]);

/** Acts on every organization's resources and creates organizations. */
export const SUPER_ADMIN_ROLE = 'SuperAdmin';

/** The service's global roles, which no organization role may be named. */
export const GLOBAL_ROLES: readonly string[] = Object.freeze(['Admin', SUPER_ADMIN_ROLE]);

/** A letter, then up to 63 letters, digits, `_` or `-`: a stricter form of a role name (no dots). */
const ORGANIZATION_ROLE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function isOrganizationRoleName(name: string): boolean {
  return ORGANIZATION_ROLE_NAME.test(name);
}

/** Why `name` cannot be declared as an organization role; undefined when it can. */
export function refusedOrganizationRole(name: string): 'malformed' | 'global' | undefined {
  if (!isOrganizationRoleName(name)) return 'malformed';
  if (GLOBAL_ROLES.includes(name)) return 'global';
  return undefined;
}

/** The declared set: the built-in roles, then the application's own, each once, in that order. */
export function declaredOrganizationRoles(extra: readonly string[]): readonly string[] {
  return Object.freeze([...new Set([...BUILT_IN_ORGANIZATION_ROLES, ...extra])]);
}
