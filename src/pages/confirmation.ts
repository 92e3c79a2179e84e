import { errorSummary, field, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
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
export function emailConfirmedPage(model: EmailConfirmedPageModel, { messages: m }: PageKit): PageContent {
  return model.confirmed
    ? { title: m.emailConfirmedTitle, main: html`<p class="notice" role="status">${m.emailConfirmedNotice}</p><nav><a href="${model.links.login}">${m.signInLink}</a></nav>` }
    : {
        title: m.emailLinkNotValidTitle,
        main: html`<p role="alert">${m.emailLinkNotValidAlert}</p><nav><a href="${model.links.resendConfirmation}">${m.emailLinkNotValidResend}</a></nav>`,
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
export function resendConfirmationPage(model: ResendConfirmationPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const sent = model.sent
    ? html`<p class="notice" role="status">${m.resendConfirmationSent}</p>`
    : '';
  const form = postForm(
    model.links.action,
    model.antiforgeryToken,
    field({ name: 'email', label: m.emailLabel, type: 'email', value: model.email, autocomplete: 'email' }, errors),
    m.resendConfirmationSubmit,
  );
  return {
    title: m.resendConfirmationTitle,
    main: html`${sent}${errorSummary(errors, m.formErrorSummaryHeading)}
${form}
<nav><a href="${model.links.login}">${m.signInLink}</a></nav>`,
  };
}
