import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
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
export function registerPage(model: RegisterPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    html`${field({ name: 'email', label: m.registerEmailLabel, type: 'email', value: model.email, autocomplete: 'email' }, errors)}
${field({ name: 'userName', label: m.registerUserNameLabel, value: model.userName, autocomplete: 'username', required: false, hint: m.registerUserNameHint }, errors)}
${field({ name: 'password', label: m.registerPasswordLabel, type: 'password', autocomplete: 'new-password', hint: m.registerPasswordHint({ minLength: model.passwordMinLength }) }, errors)}`,
    m.registerSubmit,
  );
  return {
    title: m.registerTitle,
    main: html`${errorSummary(errors, m.formErrorSummaryHeading)}
${form}
<nav><a href="${model.links.login}">${m.registerSignInInstead}</a></nav>`,
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
export function registrationSentPage(model: RegistrationSentPageModel, { messages: m }: PageKit): PageContent {
  return {
    title: m.registrationSentTitle,
    main: html`<p class="notice" role="status">${m.registrationSentNotice}</p>
<p>${m.registrationSentNothingArrived} <a href="${model.links.resendConfirmation}">${m.registrationSentResendLink}</a></p>
<nav><a href="${model.links.login}">${m.registrationSentSignIn}</a></nav>`,
  };
}
