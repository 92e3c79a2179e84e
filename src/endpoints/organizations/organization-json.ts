import type { Organization, OrganizationInvitation, OrganizationMember } from '../../store/ports.ts';

/** Organizations, members and invitations as JSON: times in ISO-8601 UTC, as every answer writes them. */

export function organizationJson({ id, name, slug, createdAt }: Organization) {
  return { id, name, slug, createdAt: new Date(createdAt).toISOString() };
}

export function memberJson({ userId, email, userName, roles, joinedAt }: OrganizationMember) {
  return { userId, email, userName, roles, joinedAt: new Date(joinedAt).toISOString() };
}

export function invitationJson({ id, email, roles, expiresAt, createdAt }: OrganizationInvitation) {
  return { id, email, roles, expiresAt: new Date(expiresAt).toISOString(), createdAt: new Date(createdAt).toISOString() };
}
