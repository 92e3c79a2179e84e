import { type Static, Type } from '@sinclair/typebox';
import type { Organizations } from '../../organizations/organizations.ts';
import { GatehouseError } from '../../security/errors.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { userAccount } from '../sign-in-limits.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { callerOf } from './organization-endpoints.ts';
import type { OrganizationPages } from './organization-pages.ts';
import { InvitationParams, invitationIdOf, MemberParams, memberIdOf, OrganizationParams, organizationIdOf } from './organization-params.ts';

/** A role ticked once arrives as text, several as a list, none not at all. */
const RoleField = Type.String({ maxLength: 64 });
const InviteForm = Type.Object(
  { email: Type.String({ maxLength: 254 }), roles: Type.Optional(Type.Union([RoleField, Type.Array(RoleField, { maxItems: 64 })])) },
  { additionalProperties: false },
);
type InviteForm = Static<typeof InviteForm>;

export interface OrganizationFormOptions {
  readonly organizations: Pick<Organizations, 'invite' | 'removeMember' | 'revokeInvitation'>;
  /** The link an invitation mail carries, as the API's invitations carry it. */
  readonly invitationLink: (code: string) => string;
  readonly pages: OrganizationPages;
}

/**
 * The organizations page's forms, each the twin of an API route that a form cannot call: `POST
 * /orgs/:id/invite` (roles as repeated fields), `POST /orgs/:id/members/:userId/remove` and
 * `POST /orgs/:id/invitations/:invitationId/revoke` (a form cannot send DELETE). The use case
 * decides as it does for the API; success is 303 back to the page with its notice, a refusal the
 * page again with the message. Form posts only: API clients use the API (415 otherwise).
 */
export function organizationFormEndpoints({ organizations, invitationLink, pages }: OrganizationFormOptions): readonly Endpoint[] {
  const invite = defineEndpoint<InviteForm>({
    method: 'POST',
    path: '/orgs/:id/invite',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    body: InviteForm,
    forms: true,
    // Each invitation sends a mail: it counts on the inviter's per-account limit, as the API's does.
    rateLimits: { account: (_body, request) => userAccount(signedInUserId(request)) },
    async handle(request) {
      formOnly(request);
      await organizations.invite(callerOf(request), organizationIdOf(request), { email: request.body.email, roles: rolesOf(request.body.roles) }, invitationLink, pages.language(request));
      return pages.backToList('invitation-sent');
    },
    formErrors: (request, errors) => {
      const { email, roles } = request.body ?? {};
      const invite = { organizationId: organizationIdOf(request), email: typeof email === 'string' ? email : '', roles: rolesOf(roles) };
      return pages.list(request, { errors, invite });
    },
  });

  const removeMember = defineEndpoint({
    method: 'POST',
    path: '/orgs/:id/members/:userId/remove',
    authorization: SIGNED_IN_USER,
    params: MemberParams,
    forms: true,
    async handle(request) {
      formOnly(request);
      await organizations.removeMember(callerOf(request), organizationIdOf(request), memberIdOf(request));
      return pages.backToList('member-removed');
    },
    formErrors: (request, errors) => pages.list(request, { errors }),
  });

  const revokeInvitation = defineEndpoint({
    method: 'POST',
    path: '/orgs/:id/invitations/:invitationId/revoke',
    authorization: SIGNED_IN_USER,
    params: InvitationParams,
    forms: true,
    async handle(request) {
      formOnly(request);
      await organizations.revokeInvitation(callerOf(request), organizationIdOf(request), invitationIdOf(request));
      return pages.backToList('invitation-revoked');
    },
    formErrors: (request, errors) => pages.list(request, { errors }),
  });

  return [invite, removeMember, revokeInvitation];
}

/** These routes answer a page's forms; the API's own routes answer JSON. */
export function formOnly(request: Pick<EndpointRequest, 'form'>): void {
  if (!request.form) throw new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemFormPostsOnly);
}

/** The ticked roles as a list, whether none, one or several were ticked. */
function rolesOf(roles: string | readonly string[] | undefined): string[] {
  if (roles === undefined) return [];
  return typeof roles === 'string' ? [roles] : [...roles];
}
