import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { type Html, html, layout } from './html.ts';
import type { MembershipPaths } from '../membership-paths.ts';

export interface ProfilePageModel {
  /** Where the membership routes are mounted: the form actions and links below. */
  readonly paths: MembershipPaths;
  readonly antiforgeryToken: string;
  readonly email: string;
  readonly userName: string | null;
  readonly emailConfirmed: boolean;
  readonly twoFactorEnabled: boolean;
  readonly roles: readonly string[];
  readonly logins: readonly string[];
  /** Configured providers this user has not linked: each gets a button that links it. */
  readonly linkable?: readonly string[];
  readonly errors?: FormErrors;
  readonly notice?: string;
}

/** `/account/profile` in a browser: who is signed in, the password form, sign-out. */
export function profilePage(model: ProfilePageModel): Html {
  const errors = model.errors ?? {};
  const { paths } = model;
  const passwordForm = postForm(
    paths.password,
    model.antiforgeryToken,
    html`${field({ name: 'currentPassword', label: 'Current password', type: 'password', autocomplete: 'current-password' }, errors)}
${field({ name: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password' }, errors)}`,
    'Change the password',
  );
  return layout(
    'Your account',
    html`${model.notice ? html`<p class="notice" role="status">${model.notice}</p>` : ''}
<dl>
<dt>E-mail</dt><dd id="profile-email">${model.email}${model.emailConfirmed ? '' : ' (not confirmed)'}</dd>
<dt>User name</dt><dd id="profile-user-name">${model.userName ?? '—'}</dd>
<dt>Roles</dt><dd>${model.roles.length > 0 ? model.roles.join(', ') : 'none'}</dd>
<dt>Two-factor sign-in</dt><dd>${model.twoFactorEnabled ? 'on' : 'off'} <a href="${paths.twoFactor}">${model.twoFactorEnabled ? 'Manage' : 'Set up'} two-factor sign-in</a></dd>
<dt>External logins</dt><dd id="profile-logins">${model.logins.length > 0 ? model.logins.join(', ') : 'none'}</dd>
</dl>
${(model.linkable ?? []).map((provider) => postForm(paths.linkedLogin(provider), model.antiforgeryToken, html``, `Link ${provider}`))}
<section aria-labelledby="password-heading"><h2 id="password-heading">Change your password</h2>
${errorSummary(errors)}
${passwordForm}</section>
${postForm(paths.logout, model.antiforgeryToken, html``, 'Sign out')}`,
  );
}
