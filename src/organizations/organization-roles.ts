/**
 * The roles a member holds in an organization. They come from a declared set, so that a name in a
 * request can be refused (400) rather than created, and none of them is ever a global role of the
 * service: a member's organization roles travel as `role` claims beside the user's own, and a
 * global policy (`Admin`, `SuperAdmin`) must never be opened from inside an organization.
 */

/**
 * The claim naming the active organization, which the hierarchical rule compares with a
 * resource's organization (docs/organizations.md). Where organizations are on, only a membership
 * supplies it: it replaces a custom claim of that type.
 */
export const ORGANIZATION_CLAIM = 'org_id';

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

/**
 * The declared organization roles of one configuration, as requests and principals meet them: a
 * request naming another is refused, and a principal carries only declared roles that are not
 * global, whatever a database written under another configuration holds.
 */
export class OrganizationRoles {
  private readonly names: ReadonlySet<string>;
  private readonly global: ReadonlySet<string>;

  constructor(
    /** The declared set (`declaredOrganizationRoles`), in its order. */
    readonly declared: readonly string[],
    /** The application's global roles, never carried from a membership. @default GLOBAL_ROLES */
    globalRoles: readonly string[] = GLOBAL_ROLES,
  ) {
    this.names = new Set(declared);
    this.global = new Set(globalRoles);
  }

  /** The names of `roles` outside the declared set, in their order. */
  undeclared(roles: readonly string[]): string[] {
    return roles.filter((role) => !this.names.has(role));
  }

  /** Of a stored membership's roles, those a principal may carry as `role` claims. */
  carried(roles: readonly string[]): string[] {
    return roles.filter((role) => this.names.has(role) && !this.global.has(role));
  }

  isGlobal(role: string): boolean {
    return this.global.has(role);
  }
}
