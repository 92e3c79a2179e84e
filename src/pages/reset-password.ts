import { checkbox, errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';

export interface ForgotPasswordPageData {
  readonly antiforgeryToken: string;
  readonly email?: string;
  readonly errors?: FormErrors;
  /** True once a request was sent: the page says so in words that reveal nothing about the address. */
  readonly sent?: boolean;
}

export interface ForgotPasswordPageLinks {
  readonly action: string;
  readonly login: string;
}

export interface ForgotPasswordPageModel extends ForgotPasswordPageData {
  readonly links: ForgotPasswordPageLinks;
}

export function forgotPasswordLinks(_data: ForgotPasswordPageData, paths: AccountPaths): ForgotPasswordPageLinks {
  return { action: paths.forgotPassword, login: paths.login };
}

/** The reset page without a code: ask for the address to send a reset link to. */
export function forgotPasswordPage(model: ForgotPasswordPageModel): PageContent {
  const errors = model.errors ?? {};
  const sent = model.sent
    ? html`<p class="notice" role="status">If an account uses this address, a reset link is on its way to it. It works once, for one hour.</p>`
    : '';
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    field({ name: 'email', label: 'E-mail', type: 'email', value: model.email, autocomplete: 'email' }, errors),
    'Send a reset link',
  );
  return {
    title: 'Reset your password',
    main: html`${sent}${errorSummary(errors)}
${form}
<nav><a href="${model.links.login}">Sign in</a></nav>`,
  };
}

export interface ResetPasswordPageData {
  readonly antiforgeryToken: string;
  readonly email: string;
  readonly code: string;
  readonly passwordMinLength: number;
  readonly errors?: FormErrors;
}

export interface ResetPasswordPageLinks {
  readonly action: string;
}

export interface ResetPasswordPageModel extends ResetPasswordPageData {
  readonly links: ResetPasswordPageLinks;
}

export function resetPasswordLinks(_data: ResetPasswordPageData, paths: AccountPaths): ResetPasswordPageLinks {
  return { action: paths.resetPassword };
}

/** The reset page with the mail's code: choose the new password. */
export function resetPasswordPage(model: ResetPasswordPageModel): PageContent {
  const errors = model.errors ?? {};
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    html`<input type="hidden" name="email" value="${model.email}">
<input type="hidden" name="code" value="${model.code}">
${field({ name: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', hint: `At least ${model.passwordMinLength} characters; common passwords are refused.` }, errors)}
<fieldset><legend>If someone else used your account</legend>
<p><small>The reset mail lists the passkeys and providers that sign in to your account besides the password. If you do not know one of them, remove them all: you can add yours again after signing in.</small></p>
${checkbox('removePasskeys', 'Remove every passkey')}
${checkbox('removeExternalLogins', 'Unlink every sign-in provider')}
</fieldset>`,
    'Set the new password',
  );
  return { title: 'Choose a new password', main: html`${errorSummary(errors)}
${form}` };
}

export type PasswordResetDonePageData = Record<string, never>;

export interface PasswordResetDonePageLinks {
  readonly login: string;
}

export interface PasswordResetDonePageModel {
  readonly links: PasswordResetDonePageLinks;
}

export function passwordResetDoneLinks(_data: PasswordResetDonePageData, paths: AccountPaths): PasswordResetDonePageLinks {
  return { login: paths.login };
}

export function passwordResetDonePage(model: PasswordResetDonePageModel): PageContent {
  return {
    title: 'Password changed',
    main: html`<p class="notice" role="status">Your password is changed and every session was signed out. Sign in with the new password.</p>
<nav><a href="${model.links.login}">Sign in</a></nav>`,
  };
}
