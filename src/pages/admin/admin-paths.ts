/**
 * Where the admin console's pages and forms live (docs/admin-console.md), beside the account
 * pages under the same prefix. The forms post to the admin API's own routes where a form can
 * (`POST …/lock`), and to a `POST` twin where the API's route is a `DELETE`.
 */
export interface AdminPaths {
  /** `GET`: the overview, with counts and links. */
  readonly home: string;
  /** `GET`: the users, searched and paged (`?q=&page=`). */
  readonly users: string;
  /** `GET`: one user's page. */
  user(id: number): string;
  /** `POST`: locks the user, ending every session; `unlock` lifts the lock. */
  userLock(id: number): string;
  userUnlock(id: number): string;
  /** `POST` (`role`): grants a role. */
  userRoles(id: number): string;
  /** `POST`: takes the role away (the twin of `DELETE /admin/users/:id/roles/:role`). */
  userRoleRemove(id: number, role: string): string;
  /** `GET`: the confirmation page; `POST`: deletes the user (the twin of `DELETE /admin/users/:id`). */
  userDelete(id: number): string;
  /** `POST`: ends every session of the user (the twin of `DELETE /admin/users/:id/sessions`). */
  userSessionsEnd(id: number): string;
  /** `POST`: a fresh confirmation mail to an unconfirmed address. */
  userResendConfirmation(id: number): string;
  /** `GET`: the security events, filtered and paged (`?type=&userId=&from=&to=&before=`). */
  readonly audit: string;
  /** `GET`: the API-key clients; `POST` (`client`): a new key, shown once. */
  readonly apiKeys: string;
  /** `POST` (`client`): revokes every key of the client. */
  readonly apiKeyRevoke: string;
  /** `GET`: the signing keys. */
  readonly signingKeys: string;
  /** `POST`: a new current signing key. */
  readonly signingKeyRotate: string;
  /** `POST` (`kid`): revokes the key. */
  readonly signingKeyRevoke: string;
  /** `GET`: the organizations with their member counts. */
  readonly organizations: string;
  /** `GET`: an organization's members. */
  organization(id: number): string;
  /** `POST` (`roles`, repeated): replaces a member's organization roles (the twin of `PATCH /orgs/:id/members/:userId`). */
  organizationMemberRoles(id: number, userId: number): string;
  /** `POST`: removes a member (the twin of `DELETE /orgs/:id/members/:userId`). */
  organizationMemberRemove(id: number, userId: number): string;
}

/** The console's paths under `base` (`/admin`, or `<prefix>/admin`). */
export function adminPaths(base = '/admin'): AdminPaths {
  const user = (id: number) => `${base}/users/${id}`;
  const member = (id: number, userId: number) => `${base}/organizations/${id}/members/${userId}`;
  return Object.freeze({
    home: base,
    users: `${base}/users`,
    user,
    userLock: (id: number) => `${user(id)}/lock`,
    userUnlock: (id: number) => `${user(id)}/unlock`,
    userRoles: (id: number) => `${user(id)}/roles`,
    userRoleRemove: (id: number, role: string) => `${user(id)}/roles/${encodeURIComponent(role)}/remove`,
    userDelete: (id: number) => `${user(id)}/delete`,
    userSessionsEnd: (id: number) => `${user(id)}/sessions/end`,
    userResendConfirmation: (id: number) => `${user(id)}/resend-confirmation`,
    audit: `${base}/audit`,
    apiKeys: `${base}/api-keys`,
    apiKeyRevoke: `${base}/api-keys/revoke`,
    signingKeys: `${base}/signing-keys`,
    signingKeyRotate: `${base}/signing-keys/rotate`,
    signingKeyRevoke: `${base}/signing-keys/revoke`,
    organizations: `${base}/organizations`,
    organization: (id: number) => `${base}/organizations/${id}`,
    organizationMemberRoles: (id: number, userId: number) => `${member(id, userId)}/roles`,
    organizationMemberRemove: (id: number, userId: number) => `${member(id, userId)}/remove`,
  });
}
