import { type Static, Type } from '@sinclair/typebox';
import { IdParams } from '../id-params.ts';

/** Ids in an organization's paths: positive integers, checked as text so that `1.5`, `1e3` and `-1` are 400s. */
const ID = IdParams.properties.id;

export const OrganizationParams = IdParams;
export const MemberParams = Type.Object({ id: ID, userId: ID });
export const InvitationParams = Type.Object({ id: ID, invitationId: ID });

export function organizationIdOf(request: { readonly params: unknown }): number {
  return Number((request.params as Static<typeof OrganizationParams>).id);
}

export function memberIdOf(request: { readonly params: unknown }): number {
  return Number((request.params as Static<typeof MemberParams>).userId);
}

export function invitationIdOf(request: { readonly params: unknown }): number {
  return Number((request.params as Static<typeof InvitationParams>).invitationId);
}
