import { checkbox, errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
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
export function forgotPasswordPage(model: ForgotPasswordPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const sent = model.sent
    ? html`<p class="notice" role="status">${m.forgotPasswordSent}</p>`
    : '';
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    field({ name: 'email', label: m.emailLabel, type: 'email', value: model.email, autocomplete: 'email' }, errors),
    m.forgotPasswordSubmit,
  );
  return {
    title: m.forgotPasswordTitle,
    main: html`${sent}${errorSummary(errors, m.formErrorSummaryHeading)}
${form}
<nav><a href="${model.links.login}">${m.signInLink}</a></nav>`,
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
export function resetPasswordPage(model: ResetPasswordPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    html`<input type="hidden" name="email" value="${model.email}">
<input type="hidden" name="code" value="${model.code}">
${field({ name: 'newPassword', label: m.resetPasswordNewPassword, type: 'password', autocomplete: 'new-password', hint: m.registerPasswordHint({ minLength: model.passwordMinLength }) }, errors)}
<fieldset><legend>${m.resetPasswordOthersLegend}</legend>
<p><small>${m.resetPasswordOthersHint}</small></p>
${checkbox('removePasskeys', m.resetPasswordRemovePasskeys)}
${checkbox('removeExternalLogins', m.resetPasswordUnlinkProviders)}
</fieldset>`,
    m.resetPasswordSubmit,
  );
  return { title: m.resetPasswordTitle, main: html`${errorSummary(errors, m.formErrorSummaryHeading)}
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

export function passwordResetDonePage(model: PasswordResetDonePageModel, { messages: m }: PageKit): PageContent {
  return {
    title: m.passwordResetDoneTitle,
    main: html`<p class="notice" role="status">${m.passwordResetDoneNotice}</p>
<nav><a href="${model.links.login}">${m.signInLink}</a></nav>`,
  };
}
