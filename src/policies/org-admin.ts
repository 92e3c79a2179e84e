import { type AuthorizationHandlerContext, type AuthorizationRequirement, RequirementHandler } from '../security/authorization/index.ts';

export interface OrganizationResource {
  readonly id: number | string;
}

/** Met by role `SuperAdmin` (any organization), or role `OrgAdmin` with claim `org_id` equal to the organization's id. */
export class OrgAdminRequirement implements AuthorizationRequirement {
  readonly description = 'an administrator of the organization';
}

export class OrgAdminHandler extends RequirementHandler<OrgAdminRequirement, OrganizationResource | null> {
  constructor() {
    super(OrgAdminRequirement);
  }

  protected handleRequirement(
    context: AuthorizationHandlerContext,
    requirement: OrgAdminRequirement,
    organization: OrganizationResource | null,
  ): void {
    const { user } = context;
    if (!user.isAuthenticated) return;
    if (user.isInRole('SuperAdmin')) return context.succeed(requirement);
    if (organization && user.isInRole('OrgAdmin') && user.hasClaim('org_id', String(organization.id))) context.succeed(requirement);
  }
}
