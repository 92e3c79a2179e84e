import { ORG_ADMIN, OrganizationRequirement, SUPER_ADMIN_ROLE } from 'gatehouse-auth';
import { hasId } from './resource-guards.ts';

export interface OrganizationResource {
  readonly id: number | string;
  readonly name: string;
}

/** An organization: an id and a name, as Gatehouse gives it. */
export function isOrganizationResource(resource: unknown): resource is OrganizationResource {
  return hasId(resource, 'id') && typeof (resource as { name?: unknown }).name === 'string';
}

/**
 * The seed's hierarchical rule on an organization itself: role `SuperAdmin` (any organization), or
 * role `OrgAdmin` with claim `org_id` equal to the organization's id, both supplied by the active
 * organization's membership. Gatehouse's `organizationAdmin()`, told that the resource is the
 * organization: anything else (a document, a post) names no organization, and not even a
 * `SuperAdmin` meets it there.
 */
export class OrgAdminRequirement extends OrganizationRequirement {
  constructor() {
    super({
      roles: [ORG_ADMIN],
      anyOrganizationRole: SUPER_ADMIN_ROLE,
      organizationOf: (resource) => (isOrganizationResource(resource) ? resource.id : undefined),
    });
  }
}
