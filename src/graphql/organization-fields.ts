import type { CallerOrganization, Organizations } from '../organizations/organizations.ts';
import { inActiveOrganization } from '../organizations/organization-requirements.ts';
import { ORGANIZATION_CLAIM } from '../organizations/organization-roles.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';

/**
 * What an application's schema needs to show organizations (docs/organizations.md): a user's
 * organizations with the user's roles there, and the caller's active one, as the resolvers of
 * `me { organizations { id name roles } activeOrganization { id name } }` return them.
 */
export interface OrganizationFields {
  /** The user's organizations with the user's roles there, by id. */
  organizationsOf(userId: number): Promise<CallerOrganization[]>;
  /** The caller's active organization (the `org_id` a membership supplies), or null. */
  activeOrganizationOf(user: ClaimsPrincipal): Promise<CallerOrganization | null>;
}

export function organizationFields(organizations: Pick<Organizations, 'listForUser'>): OrganizationFields {
  return {
    organizationsOf: (userId) => organizations.listForUser(userId),
    async activeOrganizationOf(user) {
      const { subject } = user;
      const active = user.findFirst(ORGANIZATION_CLAIM)?.value;
      if (subject === null || active === undefined) return null;
      const listed = await organizations.listForUser(Number(subject));
      return listed.find((organization) => String(organization.id) === active) ?? null;
    },
  };
}

/**
 * Only the events of the subscriber's active organization: the one-line filter of a
 * subscription (`subscribe: (_, __, context) => withinActiveOrganization(events.subscribe('ticketOpened'), context, (ticket) => ticket.organizationId)`).
 * The principal is read at each event, so a cookie socket whose member was removed, or who
 * switched, stops receiving the organization's events at once; returning the filtered stream
 * returns the events' own.
 */
export async function* withinActiveOrganization<T>(
  events: AsyncIterable<T>,
  context: { readonly user: ClaimsPrincipal },
  organizationOf: (event: T) => number | string | null | undefined,
): AsyncGenerator<T, void, undefined> {
  for await (const event of events) {
    if (inActiveOrganization(context.user, organizationOf(event))) yield event;
  }
}
