import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { type Html, html, layout } from './html.ts';
import type { MembershipPaths } from '../membership-paths.ts';

export interface ForgotPasswordPageModel {
  /** Where the membership routes are mounted: the form actions and links below. */
  readonly paths: MembershipPaths;
  readonly antiforgeryToken: string;
  readonly email?: string;
  readonly errors?: FormErrors;
  /** True once a request was sent: the page says so in words that reveal nothing about the address. */
  readonly sent?: boolean;
}

/** `/account/reset-password` without a code: ask for the address to send a reset link to. */
export function forgotPasswordPage(model: ForgotPasswordPageModel): Html {
  const errors = model.errors ?? {};
  const sent = model.sent
    ? html`<p class="notice" role="status">If an account uses this address, a reset link is on its way to it. It works once, for one hour.</p>`
    : '';
  const { paths } = model;
  const form = postForm(
    paths.forgotPassword,
    model.antiforgeryToken,
    field({ name: 'email', label: 'E-mail', type: 'email', value: model.email, autocomplete: 'email' }, errors),
    'Send a reset link',
  );
  return layout('Reset your password', html`${sent}${errorSummary(errors)}
${form}
<nav><a href="${paths.login}">Sign in</a></nav>`);
}

export interface ResetPasswordPageModel {
  /** Where the membership routes are mounted: the form actions and links below. */
  readonly paths: MembershipPaths;
  readonly antiforgeryToken: string;
  readonly email: string;
  readonly code: string;
  readonly passwordMinLength: number;
  readonly errors?: FormErrors;
}

/** `/account/reset-password?email=&code=` from the mail: choose the new password. */
export function resetPasswordPage(model: ResetPasswordPageModel): Html {
  const errors = model.errors ?? {};
  const form = postForm(
    model.paths.resetPassword,
    model.antiforgeryToken,
    html`<input type="hidden" name="email" value="${model.email}">
<input type="hidden" name="code" value="${model.code}">
${field({ name: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', hint: `At least ${model.passwordMinLength} characters; common passwords are refused.` }, errors)}`,
    'Set the new password',
  );
  return layout('Choose a new password', html`${errorSummary(errors)}
${form}`);
}

export function passwordResetDonePage(paths: MembershipPaths): Html {
  return layout('Password changed', html`<p class="notice" role="status">Your password is changed and every session was signed out. Sign in with the new password.</p>
<nav><a href="${paths.login}">Sign in</a></nav>`);
}
