import { adminPaths, type AdminPaths } from './admin/admin-paths.ts';

/**
 * Where the membership pages live, in one place: every link, form action and redirect a page
 * writes is built from these (by the page's own `links` function), so moving the pages under
 * another path changes this object and nothing in the pages.
 */
export interface AccountPaths {
  readonly login: string;
  readonly loginTwoFactor: string;
  readonly loginTwoFactorSend: string;
  readonly loginRecovery: string;
  readonly logout: string;
  readonly register: string;
  readonly resendConfirmation: string;
  readonly forgotPassword: string;
  readonly resetPassword: string;
  readonly profile: string;
  readonly password: string;
  readonly twoFactor: string;
  readonly twoFactorEnable: string;
  readonly twoFactorDisable: string;
  readonly recoveryCodes: string;
  readonly phone: string;
  readonly phoneConfirm: string;
  readonly phoneRemove: string;
  /** `POST`: the options of a new passkey (its WebAuthn creation options). */
  readonly passkeyOptions: string;
  /** `POST`: registers a passkey; `GET`: the user's passkeys. */
  readonly passkeys: string;
  /** `POST`: the options of a sign-in with a passkey. */
  readonly loginPasskeyOptions: string;
  /** `POST`: signs in with a passkey. */
  readonly loginPasskey: string;
  /** `PATCH` renames, `DELETE` removes the passkey of this credential id. */
  passkey(id: string): string;
  /** `POST`: ends every other session and token client of the user ("Sign out everywhere else"). */
  readonly sessionsRevokeOthers: string;
  /** `POST`: ends one of the user's sessions, by its opaque id (a form cannot send DELETE). */
  sessionRevoke(id: string): string;
  /** `GET`: starts a sign-in with an external provider. */
  externalLogin(provider: string): string;
  /** `POST`: links an external provider to the signed-in account. */
  linkLogin(provider: string): string;
  /** `GET`: the user's organizations (the page). */
  readonly organizations: string;
  /** `POST`: the switch of the active organization (`organizationId` empty for none). */
  readonly organizationsSwitch: string;
  /** `POST`: the forms of an organization's page: invite, remove a member, revoke an invitation. */
  organizationInvite(organizationId: number): string;
  organizationMemberRemove(organizationId: number, userId: number): string;
  organizationInvitationRevoke(organizationId: number, invitationId: number): string;
  /** `GET`: an invitation's page; `POST` to `invitationAccept` accepts it. */
  invitation(code: string): string;
  invitationAccept(code: string): string;
  /** The admin console's pages and forms (role `Admin`), beside the account pages. */
  readonly admin: AdminPaths;
}

/**
 * The paths under `base` (`/account` by default), the organizations' forms under
 * `organizationsBase` (`/orgs`), and the admin console under `adminBase`: by default `admin`
 * beside `base`, under the same prefix (`/identity/account` → `/identity/admin`).
 */
export function accountPaths(base = '/account', organizationsBase = '/orgs', adminBase = `${base.replace(/\/[^/]*$/, '')}/admin`): AccountPaths {
  const invitation = (code: string) => `${base}/invitations/${encodeURIComponent(code)}`;
  return Object.freeze({
    login: `${base}/login`,
    loginTwoFactor: `${base}/login/2fa`,
    loginTwoFactorSend: `${base}/login/2fa/send`,
    loginRecovery: `${base}/login/recovery`,
    logout: `${base}/logout`,
    register: `${base}/register`,
    resendConfirmation: `${base}/resend-confirmation`,
    forgotPassword: `${base}/forgot-password`,
    resetPassword: `${base}/reset-password`,
    profile: `${base}/profile`,
    password: `${base}/password`,
    twoFactor: `${base}/2fa`,
    twoFactorEnable: `${base}/2fa/enable`,
    twoFactorDisable: `${base}/2fa/disable`,
    recoveryCodes: `${base}/2fa/recovery-codes`,
    phone: `${base}/phone`,
    phoneConfirm: `${base}/phone/confirm`,
    phoneRemove: `${base}/phone/remove`,
    passkeyOptions: `${base}/passkeys/options`,
    passkeys: `${base}/passkeys`,
    loginPasskeyOptions: `${base}/login/passkey/options`,
    loginPasskey: `${base}/login/passkey`,
    passkey: (id: string) => `${base}/passkeys/${encodeURIComponent(id)}`,
    sessionsRevokeOthers: `${base}/sessions/revoke-others`,
    sessionRevoke: (id: string) => `${base}/sessions/${encodeURIComponent(id)}/revoke`,
    externalLogin: (provider: string) => `${base}/external-login/${encodeURIComponent(provider)}`,
    linkLogin: (provider: string) => `${base}/logins/${encodeURIComponent(provider)}`,
    organizations: `${base}/organizations`,
    organizationsSwitch: `${base}/organizations/switch`,
    organizationInvite: (id: number) => `${organizationsBase}/${id}/invite`,
    organizationMemberRemove: (id: number, userId: number) => `${organizationsBase}/${id}/members/${userId}/remove`,
    organizationInvitationRevoke: (id: number, invitationId: number) => `${organizationsBase}/${id}/invitations/${invitationId}/revoke`,
    invitation,
    invitationAccept: (code: string) => `${invitation(code)}/accept`,
    admin: adminPaths(adminBase),
  });
}

export const ACCOUNT_PATHS = accountPaths();

/** `path?name=value` with the value encoded, or `path` when there is no value. */
export function withQuery(path: string, name: string, value: string | null | undefined): string {
  return value ? `${path}?${name}=${encodeURIComponent(value)}` : path;
}
