import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { AuthorizationHandlerContext } from '../security/authorization/authorization-handler-context.ts';
import type { AuthorizationRequirement } from '../security/authorization/authorization-requirement.ts';
import { ResourceRequirementHandler } from '../security/authorization/resource-requirement-handler.ts';
import { ORG_ADMIN, ORGANIZATION_CLAIM, SUPER_ADMIN_ROLE } from './organization-roles.ts';

/** Where a resource names the organization it belongs to. */
export type OrganizationOf = (resource: unknown) => number | string | null | undefined;

/** By default a resource names it as `organizationId` (a document, a ticket, an organization's settings). */
export const byOrganizationId: OrganizationOf = (resource) => {
  const id = (resource as { organizationId?: unknown }).organizationId;
  return typeof id === 'number' || typeof id === 'string' ? id : undefined;
};

export interface OrganizationRequirementOptions {
  /** One of these roles in the resource's organization; none named: membership alone. */
  readonly roles?: readonly string[];
  /** A global role that meets the requirement for every organization's resources. @default none */
  readonly anyOrganizationRole?: string;
  /** Where the resource names its organization. @default `resource.organizationId` */
  readonly organizationOf?: OrganizationOf;
}

/**
 * A resource of the caller's organization: the principal's active organization (`org_id`, which
 * only a membership supplies) is the resource's, and, when `roles` are named, the caller holds
 * one of them there (organization roles travel as `role` claims of the active organization only).
 * Judged by `OrganizationRequirementHandler`, which Gatehouse registers.
 */
export class OrganizationRequirement implements AuthorizationRequirement {
  readonly roles: readonly string[];
  readonly anyOrganizationRole: string | undefined;
  readonly organizationOf: OrganizationOf;

  constructor(options: OrganizationRequirementOptions = {}) {
    this.roles = Object.freeze([...(options.roles ?? [])]);
    this.anyOrganizationRole = options.anyOrganizationRole;
    this.organizationOf = options.organizationOf ?? byOrganizationId;
  }

  get description(): string {
    const within = this.roles.length === 0 ? 'a member of the resource\'s organization' : `${this.roles.join(' or ')} of the resource's organization`;
    return this.anyOrganizationRole === undefined ? within : `${this.anyOrganizationRole}, or ${within}`;
  }
}

/** Membership of the resource's organization (the active one). */
export function organizationMember(options: Pick<OrganizationRequirementOptions, 'organizationOf'> = {}): OrganizationRequirement {
  return new OrganizationRequirement(options);
}

/** One of `roles` in the resource's organization (the active one). */
export function organizationRole(roles: readonly string[], options: Pick<OrganizationRequirementOptions, 'organizationOf'> = {}): OrganizationRequirement {
  return new OrganizationRequirement({ ...options, roles });
}

/**
 * The hierarchical rule: role `SuperAdmin` acts on every organization's resources; otherwise the
 * caller is `OrgAdmin` with `org_id` equal to the resource's organization.
 */
export function organizationAdmin(options: Pick<OrganizationRequirementOptions, 'organizationOf'> = {}): OrganizationRequirement {
  return new OrganizationRequirement({ ...options, roles: [ORG_ADMIN], anyOrganizationRole: SUPER_ADMIN_ROLE });
}

/**
 * Whether `organizationId` is the principal's active organization: the one-line filter of a
 * subscription's events (`(event, context) => inActiveOrganization(context.user, event.organizationId)`)
 * and of a query's rows.
 */
export function inActiveOrganization(user: ClaimsPrincipal, organizationId: number | string | null | undefined): boolean {
  if (organizationId === null || organizationId === undefined || !user.isAuthenticated) return false;
  return user.hasClaim(ORGANIZATION_CLAIM, String(organizationId));
}

/** Judges `OrganizationRequirement` on a resource that names its organization; without one it stays pending. */
export class OrganizationRequirementHandler extends ResourceRequirementHandler<OrganizationRequirement, object> {
  constructor() {
    super(OrganizationRequirement, (resource): resource is object => typeof resource === 'object');
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: OrganizationRequirement, resource: object): void {
    const { user } = context;
    if (!user.isAuthenticated) return;
    const organizationId = requirement.organizationOf(resource);
    // A resource that names no organization is nobody's to act on through one.
    if (organizationId === null || organizationId === undefined) return;
    if (requirement.anyOrganizationRole !== undefined && user.isInRole(requirement.anyOrganizationRole)) return context.succeed(requirement);
    if (!inActiveOrganization(user, organizationId)) return;
    if (requirement.roles.length === 0 || requirement.roles.some((role) => user.isInRole(role))) context.succeed(requirement);
  }
}
