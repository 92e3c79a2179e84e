import { errorSummary, field, type FormErrors, notice, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';
import { type PageScript, type PasskeyManagementLinks, passkeyManagementLinks, passkeysSection, type PasskeyView } from './passkeys/passkey-markup.ts';
import { type ProfileSession, type ProfileSessionLinks, profileSessionLinks, sessionsSection } from './profile-sessions.ts';

export interface ProfilePageData {
  readonly antiforgeryToken: string;
  readonly email: string;
  readonly userName: string | null;
  readonly emailConfirmed: boolean;
  readonly phoneNumber?: string | null;
  readonly phoneConfirmed?: boolean;
  readonly twoFactorEnabled: boolean;
  readonly roles: readonly string[];
  readonly logins: readonly string[];
  /** Configured providers this user has not linked: each gets a button that links it. */
  readonly linkable?: readonly string[];
  /** The user's passkeys, when passkeys are on. */
  readonly passkeys?: readonly PasskeyView[];
  readonly errors?: FormErrors;
  readonly notice?: string;
  /** "Where you are signed in", when the application lists sessions. */
  readonly sessions?: readonly ProfileSession[];
}

export interface ProfilePageLinks {
  readonly password: string;
  readonly twoFactor: string;
  readonly phone: string;
  readonly logout: string;
  /** The form action that links each provider of `linkable`. */
  readonly linkLogins: readonly { readonly provider: string; readonly action: string }[];
  /** The passkeys section's script and routes; null when passkeys are off. */
  readonly passkeys: PasskeyManagementLinks | null;
  readonly sessions: ProfileSessionLinks;
}

export interface ProfilePageModel extends ProfilePageData {
  readonly links: ProfilePageLinks;
}

export function profileLinks(data: ProfilePageData, paths: AccountPaths, script: PageScript | null = null): ProfilePageLinks {
  return {
    password: paths.password,
    twoFactor: paths.twoFactor,
    phone: paths.phone,
    logout: paths.logout,
    linkLogins: (data.linkable ?? []).map((provider) => ({ provider, action: paths.linkLogin(provider) })),
    passkeys: passkeyManagementLinks(script, paths, data.passkeys),
    sessions: profileSessionLinks(paths),
  };
}

/** The signed-in user's page: who is signed in, passkeys, the password form, where else, sign-out. */
export function profilePage(model: ProfilePageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const { links } = model;
  const passwordForm = postForm(
    links.password,
    model.antiforgeryToken,
    html`${field({ name: 'currentPassword', label: m.profileCurrentPassword, type: 'password', autocomplete: 'current-password' }, errors)}
${field({ name: 'newPassword', label: m.profileNewPassword, type: 'password', autocomplete: 'new-password' }, errors)}`,
    m.profileChangePasswordSubmit,
  );
  const phone = model.phoneNumber ? html`${model.phoneNumber}${model.phoneConfirmed ? '' : m.profileNotConfirmed} ` : html`${m.profileNone} `;
  return {
    title: m.profileTitle,
    main: html`${notice(model.notice)}
<dl class="gh-details">
<dt>${m.profileEmail}</dt><dd id="profile-email">${model.email}${model.emailConfirmed ? '' : m.profileNotConfirmed}</dd>
<dt>${m.profileUserName}</dt><dd id="profile-user-name">${model.userName ?? '—'}</dd>
<dt>${m.profileRoles}</dt><dd>${model.roles.length > 0 ? model.roles.join(', ') : m.profileNone}</dd>
<dt>${m.profilePhoneNumber}</dt><dd id="profile-phone">${phone}<a href="${links.phone}">${model.phoneNumber ? m.profileChangePhone : m.profileAddPhone}</a></dd>
<dt>${m.profileTwoFactor}</dt><dd>${model.twoFactorEnabled ? m.profileOn : m.profileOff} <a href="${links.twoFactor}">${model.twoFactorEnabled ? m.profileManageTwoFactor : m.profileSetUpTwoFactor}</a></dd>
<dt>${m.profileExternalLogins}</dt><dd id="profile-logins">${model.logins.length > 0 ? model.logins.join(', ') : m.profileNone}</dd>
</dl>
${links.linkLogins.map(({ provider, action }) => postForm(action, model.antiforgeryToken, html``, m.profileLinkProvider({ provider }), 'secondary'))}
${links.passkeys === null || model.passkeys === undefined ? '' : passkeysSection(model.passkeys, links.passkeys, m)}
<section aria-labelledby="password-heading"><h2 id="password-heading">${m.profileChangePasswordHeading}</h2>
${errorSummary(errors, m.formErrorSummaryHeading)}
${passwordForm}</section>
${model.sessions ? sessionsSection(model.sessions, links.sessions, model.antiforgeryToken, m) : ''}
${postForm(links.logout, model.antiforgeryToken, html``, m.profileSignOut, 'secondary')}`,
  };
}
