import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { type Html, html, layout } from './html.ts';
import type { MembershipPaths } from '../membership-paths.ts';

export interface RegisterPageModel {
  /** Where the membership routes are mounted: the form actions and links below. */
  readonly paths: MembershipPaths;
  readonly antiforgeryToken: string;
  readonly email?: string;
  readonly userName?: string;
  readonly errors?: FormErrors;
  readonly passwordMinLength: number;
}

/** `/account/register`. */
export function registerPage(model: RegisterPageModel): Html {
  const errors = model.errors ?? {};
  const { paths } = model;
  const form = postForm(
    paths.register,
    model.antiforgeryToken,
    html`${field({ name: 'email', label: 'E-mail', type: 'email', value: model.email, autocomplete: 'email' }, errors)}
${field({ name: 'userName', label: 'User name (optional)', value: model.userName, autocomplete: 'username', required: false, hint: '3 to 64 letters, digits, dots, dashes or underscores.' }, errors)}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', hint: `At least ${model.passwordMinLength} characters; common passwords are refused.` }, errors)}`,
    'Create the account',
  );
  return layout('Create an account', html`${errorSummary(errors)}
${form}
<nav><a href="${paths.login}">Sign in instead</a></nav>`);
}

/** After a registration: the same words whether or not the address was known (no enumeration). */
export function registrationSentPage(paths: MembershipPaths): Html {
  return layout(
    'Check your mail',
    html`<p class="notice" role="status">If the address can be used, a message is on its way to it. Follow its link to confirm the account, then sign in.</p>
<nav><a href="${paths.login}">Sign in</a></nav>`,
  );
}

/** `/account/confirm-email` in a browser. */
export function emailConfirmedPage(paths: MembershipPaths, confirmed: boolean): Html {
  return confirmed
    ? layout('E-mail confirmed', html`<p class="notice" role="status">Your e-mail is confirmed. You can sign in now.</p><nav><a href="${paths.login}">Sign in</a></nav>`)
    : layout('Link not valid', html`<p role="alert">This confirmation link is wrong, expired or replaced by a newer one. Register again to get a new one.</p><nav><a href="${paths.register}">Register</a></nav>`);
}
