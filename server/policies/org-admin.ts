import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from 'gatehouse-auth';
import { hasId } from './resource-guards.ts';

export interface OrganizationResource {
  readonly id: number | string;
  readonly name: string;
}

/** An organization: an id and a name, as the store gives it. */
export function isOrganizationResource(resource: unknown): resource is OrganizationResource {
  return hasId(resource, 'id') && typeof (resource as { name?: unknown }).name === 'string';
}

/** Met by role `SuperAdmin` (any organization), or role `OrgAdmin` with claim `org_id` equal to the organization's id. */
export class OrgAdminRequirement implements AuthorizationRequirement {
  readonly description = 'an administrator of the organization';
}

/** Judges only an organization: without one, not even a `SuperAdmin` meets the requirement. */
export class OrgAdminHandler extends ResourceRequirementHandler<OrgAdminRequirement, OrganizationResource> {
  constructor() {
    super(OrgAdminRequirement, isOrganizationResource);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: OrgAdminRequirement, organization: OrganizationResource): void {
    const { user } = context;
    if (!user.isAuthenticated) return;
    if (user.isInRole('SuperAdmin')) return context.succeed(requirement);
    if (user.isInRole('OrgAdmin') && user.hasClaim('org_id', String(organization.id))) context.succeed(requirement);
  }
}
