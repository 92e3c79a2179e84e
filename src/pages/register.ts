import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';

export interface RegisterPageData {
  readonly antiforgeryToken: string;
  readonly email?: string;
  readonly userName?: string;
  readonly errors?: FormErrors;
  readonly passwordMinLength: number;
}

export interface RegisterPageLinks {
  readonly action: string;
  readonly login: string;
}

export interface RegisterPageModel extends RegisterPageData {
  readonly links: RegisterPageLinks;
}

export function registerLinks(_data: RegisterPageData, paths: AccountPaths): RegisterPageLinks {
  return { action: paths.register, login: paths.login };
}

/** The registration form. */
export function registerPage(model: RegisterPageModel): PageContent {
  const errors = model.errors ?? {};
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    html`${field({ name: 'email', label: 'E-mail', type: 'email', value: model.email, autocomplete: 'email' }, errors)}
${field({ name: 'userName', label: 'User name (optional)', value: model.userName, autocomplete: 'username', required: false, hint: '3 to 64 letters, digits, dots, dashes or underscores.' }, errors)}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', hint: `At least ${model.passwordMinLength} characters; common passwords are refused.` }, errors)}`,
    'Create the account',
  );
  return {
    title: 'Create an account',
    main: html`${errorSummary(errors)}
${form}
<nav><a href="${model.links.login}">Sign in instead</a></nav>`,
  };
}

export type RegistrationSentPageData = Record<string, never>;

export interface RegistrationSentPageLinks {
  readonly login: string;
  readonly resendConfirmation: string;
}

export interface RegistrationSentPageModel {
  readonly links: RegistrationSentPageLinks;
}

export function registrationSentLinks(_data: RegistrationSentPageData, paths: AccountPaths): RegistrationSentPageLinks {
  return { login: paths.login, resendConfirmation: paths.resendConfirmation };
}

/** After a registration: the same words whether or not the address was known (no enumeration). */
export function registrationSentPage(model: RegistrationSentPageModel): PageContent {
  return {
    title: 'Check your mail',
    main: html`<p class="notice" role="status">If the address can be used, a message is on its way to it. Follow its link to confirm the account, then sign in.</p>
<p>Nothing arrived after a few minutes? <a href="${model.links.resendConfirmation}">Send the confirmation mail again</a></p>
<nav><a href="${model.links.login}">Sign in</a></nav>`,
  };
}
