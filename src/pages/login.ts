import { checkbox, errorSummary, field, type FormErrors, notice, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
import { type PageScript, passkeySignIn, type PasskeySignInLinks, passkeySignInLinks } from './passkeys/passkey-markup.ts';
import { type AccountPaths, withQuery } from './paths.ts';

export interface LoginPageData {
  readonly antiforgeryToken: string;
  /** Where a successful sign-in goes; kept only when it is a local path. */
  readonly returnUrl?: string;
  /** What the user typed as e-mail or user name, shown again after a failure. */
  readonly login?: string;
  readonly rememberMe?: boolean;
  readonly errors?: FormErrors;
  /** External providers, by route name. */
  readonly providers?: readonly string[];
  readonly notice?: string;
  /** The sign-in was refused because the e-mail is not confirmed yet: the page offers a new mail. */
  readonly unconfirmedEmail?: boolean;
}

export interface LoginPageLinks {
  readonly action: string;
  readonly register: string;
  readonly forgotPassword: string;
  readonly resendConfirmation: string;
  /** Each provider's sign-in, carrying the return URL. */
  readonly externalLogins: readonly { readonly provider: string; readonly href: string }[];
  /** "Sign in with a passkey": its script and the routes it calls; null when passkeys are off. */
  readonly passkeySignIn: PasskeySignInLinks | null;
}

export interface LoginPageModel extends LoginPageData {
  readonly links: LoginPageLinks;
}

export function loginLinks(data: LoginPageData, paths: AccountPaths, script: PageScript | null = null): LoginPageLinks {
  // The address typed goes along to the resend page only when it is one.
  const email = data.login?.includes('@') ? data.login : undefined;
  return {
    action: withQuery(paths.login, 'ReturnUrl', data.returnUrl),
    register: paths.register,
    forgotPassword: paths.resetPassword,
    resendConfirmation: withQuery(paths.resendConfirmation, 'email', email),
    externalLogins: (data.providers ?? []).map((provider) => ({ provider, href: withQuery(paths.externalLogin(provider), 'returnUrl', data.returnUrl) })),
    passkeySignIn: passkeySignInLinks(script, paths, data.returnUrl),
  };
}

/** The cookie scheme's login page. */
export function loginPage(model: LoginPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    html`${field({ name: 'email', label: m.loginLoginLabel, value: model.login, autocomplete: 'username' }, errors)}
${field({ name: 'password', label: m.loginPasswordLabel, type: 'password', autocomplete: 'current-password' }, errors)}
${checkbox('rememberMe', m.loginRememberMe, model.rememberMe)}`,
    m.loginSubmit,
  );
  const resend = model.unconfirmedEmail
    ? html`<p id="resend-confirmation">${m.loginNoMail} <a href="${model.links.resendConfirmation}">${m.loginResendLink}</a></p>`
    : '';
  const providers = model.links.externalLogins;
  const external =
    providers.length === 0
      ? ''
      : html`<section aria-labelledby="external-heading"><h2 id="external-heading">${m.loginOrSignInWith}</h2>
<ul class="gh-providers">${providers.map(({ provider, href }) => html`<li><a href="${href}">${provider}</a></li>`)}</ul></section>`;
  return {
    title: m.loginTitle,
    main: html`${notice(model.notice)}
${errorSummary(errors, m.formErrorSummaryHeading)}
${resend}
${form}
${model.links.passkeySignIn === null ? '' : passkeySignIn(model.links.passkeySignIn, 'rememberMe', m)}
${external}
<nav><a href="${model.links.register}">${m.loginCreateAccount}</a> <a href="${model.links.forgotPassword}">${m.loginForgotPassword}</a></nav>`,
  };
}
