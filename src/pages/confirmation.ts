import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';

export interface EmailConfirmedPageData {
  /** False for a wrong, voided or expired link. */
  readonly confirmed: boolean;
}

export interface EmailConfirmedPageLinks {
  readonly login: string;
  readonly resendConfirmation: string;
}

export interface EmailConfirmedPageModel extends EmailConfirmedPageData {
  readonly links: EmailConfirmedPageLinks;
}

export function emailConfirmedLinks(_data: EmailConfirmedPageData, paths: AccountPaths): EmailConfirmedPageLinks {
  return { login: paths.login, resendConfirmation: paths.resendConfirmation };
}

/** Where the confirmation link of the mail lands in a browser. */
export function emailConfirmedPage(model: EmailConfirmedPageModel): PageContent {
  return model.confirmed
    ? { title: 'E-mail confirmed', main: html`<p class="notice" role="status">Your e-mail is confirmed. You can sign in now.</p><nav><a href="${model.links.login}">Sign in</a></nav>` }
    : {
        title: 'Link not valid',
        main: html`<p role="alert">This confirmation link is wrong, expired or replaced by a newer one.</p><nav><a href="${model.links.resendConfirmation}">Send a new confirmation mail</a></nav>`,
      };
}

export interface ResendConfirmationPageData {
  readonly antiforgeryToken: string;
  readonly email?: string;
  readonly errors?: FormErrors;
  /** True once a request was sent: the page says so in words that reveal nothing about the address. */
  readonly sent?: boolean;
}

export interface ResendConfirmationPageLinks {
  readonly action: string;
  readonly login: string;
}

export interface ResendConfirmationPageModel extends ResendConfirmationPageData {
  readonly links: ResendConfirmationPageLinks;
}

export function resendConfirmationLinks(_data: ResendConfirmationPageData, paths: AccountPaths): ResendConfirmationPageLinks {
  return { action: paths.resendConfirmation, login: paths.login };
}

/** Asks for the address of an account not confirmed yet, and sends it a fresh confirmation link. */
export function resendConfirmationPage(model: ResendConfirmationPageModel): PageContent {
  const errors = model.errors ?? {};
  const sent = model.sent
    ? html`<p class="notice" role="status">If an account with this address still needs confirming, a new confirmation link is on its way to it. Links in earlier mails no longer work.</p>`
    : '';
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    field({ name: 'email', label: 'E-mail', type: 'email', value: model.email, autocomplete: 'email' }, errors),
    'Send the confirmation mail',
  );
  return {
    title: 'Confirm your e-mail address',
    main: html`${sent}${errorSummary(errors)}
${form}
<nav><a href="${model.links.login}">Sign in</a></nav>`,
  };
}
