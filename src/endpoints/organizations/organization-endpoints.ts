import { type Static, Type } from '@sinclair/typebox';
import { SUPER_ADMIN_ROLE } from '../../organizations/organization-roles.ts';
import type { Organizations, OrganizationCaller } from '../../organizations/organizations.ts';
import type { AuthorizationMetadata } from '../../security/authorization/index.ts';
import type { PolicyName } from '../../security/authorization/policy-names.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { userAccount } from '../sign-in-limits.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { invitationJson, memberJson, organizationJson } from './organization-json.ts';
import { InvitationParams, invitationIdOf, MemberParams, memberIdOf, OrganizationParams, organizationIdOf } from './organization-params.ts';

/** Slugs are checked by the use case (400 naming the rule); this only bounds what is read. */
const Name = Type.String({ maxLength: 1000 });
const Slug = Type.String({ maxLength: 1000 });
/** Roles are checked against the declared set by the use case (400 naming the undeclared). */
export const Roles = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 });

const CreateBody = Type.Object({ name: Name, slug: Type.Optional(Slug) }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(Name), slug: Type.Optional(Slug) }, { additionalProperties: false });
const RolesBody = Type.Object({ roles: Roles }, { additionalProperties: false });
const InvitationBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), roles: Roles }, { additionalProperties: false });

export interface OrganizationEndpointOptions {
  readonly organizations: Organizations;
  /** `ORGANIZATIONS_SELF_SERVICE`: any signed-in user may ask to create one (the use case then wants a confirmed e-mail). */
  readonly selfService: boolean;
  /** The link an invitation mail carries, for its code: `<PUBLIC_URL>/account/invitations/<code>` under the mount point. */
  readonly invitationLink: (code: string) => string;
}

/**
 * The organization API (docs/organizations.md): `/orgs` and what hangs under it. Every route needs
 * a signed-in user; what that user may do in the organization is the use case's to decide (404
 * for an organization the caller may not know of, 403 for a member lacking the role).
 */
export function organizationEndpoints({ organizations, invitationLink, selfService }: OrganizationEndpointOptions): readonly Endpoint[] {
  const create = defineEndpoint<Static<typeof CreateBody>>({
    method: 'POST',
    path: '/orgs',
    // Decided by the pipeline, before the body is read: without self-service, role SuperAdmin.
    authorization: selfService ? SIGNED_IN_USER : SUPER_ADMIN,
    body: CreateBody,
    successStatus: 201,
    async handle(request) {
      const { id, name, slug } = await organizations.create(callerOf(request), request.body);
      return { status: 201, headers: NO_STORE, body: { id, name, slug } };
    },
  });

  const read = defineEndpoint({
    method: 'GET',
    path: '/orgs/:id',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    async handle(request) {
      return { status: 200, headers: NO_STORE, body: organizationJson(await organizations.get(callerOf(request), organizationIdOf(request))) };
    },
  });

  const update = defineEndpoint<Static<typeof UpdateBody>>({
    method: 'PATCH',
    path: '/orgs/:id',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    body: UpdateBody,
    async handle(request) {
      const updated = await organizations.update(callerOf(request), organizationIdOf(request), request.body);
      return { status: 200, headers: NO_STORE, body: organizationJson(updated) };
    },
  });

  const remove = defineEndpoint({
    method: 'DELETE',
    path: '/orgs/:id',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    successStatus: 204,
    async handle(request) {
      await organizations.delete(callerOf(request), organizationIdOf(request));
      return { status: 204, headers: NO_STORE };
    },
  });

  const members = defineEndpoint({
    method: 'GET',
    path: '/orgs/:id/members',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    async handle(request) {
      const listed = await organizations.members(callerOf(request), organizationIdOf(request));
      return { status: 200, headers: NO_STORE, body: listed.map(memberJson) };
    },
  });

  const memberRoles = defineEndpoint<Static<typeof RolesBody>>({
    method: 'PATCH',
    path: '/orgs/:id/members/:userId',
    authorization: SIGNED_IN_USER,
    params: MemberParams,
    body: RolesBody,
    async handle(request) {
      const member = await organizations.setMemberRoles(callerOf(request), organizationIdOf(request), memberIdOf(request), request.body.roles);
      return { status: 200, headers: NO_STORE, body: memberJson(member) };
    },
  });

  const removeMember = defineEndpoint({
    method: 'DELETE',
    path: '/orgs/:id/members/:userId',
    authorization: SIGNED_IN_USER,
    params: MemberParams,
    successStatus: 204,
    async handle(request) {
      await organizations.removeMember(callerOf(request), organizationIdOf(request), memberIdOf(request));
      return { status: 204, headers: NO_STORE };
    },
  });

  const invite = defineEndpoint<Static<typeof InvitationBody>>({
    method: 'POST',
    path: '/orgs/:id/invitations',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    body: InvitationBody,
    successStatus: 201,
    // Each invitation sends a mail: it counts on the inviter's per-account limit.
    rateLimits: { account: (_body, request) => userAccount(signedInUserId(request)) },
    async handle(request) {
      const invitation = await organizations.invite(callerOf(request), organizationIdOf(request), request.body, invitationLink);
      const { id, email, roles, expiresAt } = invitationJson(invitation);
      return { status: 201, headers: NO_STORE, body: { id, email, roles, expiresAt } };
    },
  });

  const invitations = defineEndpoint({
    method: 'GET',
    path: '/orgs/:id/invitations',
    authorization: SIGNED_IN_USER,
    params: OrganizationParams,
    async handle(request) {
      const pending = await organizations.invitations(callerOf(request), organizationIdOf(request));
      return { status: 200, headers: NO_STORE, body: pending.map(invitationJson) };
    },
  });

  const revokeInvitation = defineEndpoint({
    method: 'DELETE',
    path: '/orgs/:id/invitations/:invitationId',
    authorization: SIGNED_IN_USER,
    params: InvitationParams,
    successStatus: 204,
    async handle(request) {
      await organizations.revokeInvitation(callerOf(request), organizationIdOf(request), invitationIdOf(request));
      return { status: 204, headers: NO_STORE };
    },
  });

  return [create, read, update, remove, members, memberRoles, removeMember, invite, invitations, revokeInvitation];
}

/** A signed-in user with role `SuperAdmin` (never an organization role: it cannot be declared). */
const SUPER_ADMIN: AuthorizationMetadata<PolicyName> = { authorize: [...(SIGNED_IN_USER.authorize ?? []), { roles: [SUPER_ADMIN_ROLE] }] };

/** The signed-in caller, as the use case checks their standing. */
export function callerOf(request: Pick<EndpointRequest, 'user' | 'ip'>): OrganizationCaller {
  return { userId: signedInUserId(request), ip: request.ip };
}
