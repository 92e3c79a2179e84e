import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';

export interface ErrorPageData {
  /** 403: signed in, but not allowed; 404: no such page. */
  readonly status: 403 | 404;
}

export interface ErrorPageLinks {
  readonly profile: string;
  readonly login: string;
}

export interface ErrorPageModel extends ErrorPageData {
  readonly links: ErrorPageLinks;
}

export function errorLinks(_data: ErrorPageData, paths: AccountPaths): ErrorPageLinks {
  return { profile: paths.profile, login: paths.login };
}

/** A browser's answer to a refused or unknown page under the membership paths, instead of problem+json. */
export function errorPage(model: ErrorPageModel, { messages: m }: PageKit): PageContent {
  const { links } = model;
  if (model.status === 403) {
    return {
      title: m.errorForbiddenTitle,
      main: html`<p role="alert">${m.errorForbiddenAlert}</p>
<nav><a href="${links.profile}">${m.errorYourAccount}</a> <a href="${links.login}">${m.errorSignInAsSomeoneElse}</a></nav>`,
    };
  }
  return {
    title: m.errorNotFoundTitle,
    main: html`<p role="alert">${m.errorNotFoundAlert}</p>
<nav><a href="${links.profile}">${m.errorYourAccount}</a> <a href="${links.login}">${m.signInLink}</a></nav>`,
  };
}

export interface ExternalLoginRefusedPageData {
  readonly message: string;
}

export interface ExternalLoginRefusedPageLinks {
  readonly login: string;
}

export interface ExternalLoginRefusedPageModel extends ExternalLoginRefusedPageData {
  readonly links: ExternalLoginRefusedPageLinks;
}

export function externalLoginRefusedLinks(_data: ExternalLoginRefusedPageData, paths: AccountPaths): ExternalLoginRefusedPageLinks {
  return { login: paths.login };
}

/** A sign-in through an external provider that ended without signing in. */
export function externalLoginRefusedPage(model: ExternalLoginRefusedPageModel, { messages: m }: PageKit): PageContent {
  return { title: m.externalLoginRefusedTitle, main: html`<p role="alert">${model.message}</p><nav><a href="${model.links.login}">${m.externalLoginRefusedBack}</a></nav>` };
}
