import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
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
export function errorPage(model: ErrorPageModel): PageContent {
  const { links } = model;
  if (model.status === 403) {
    return {
      title: 'Access denied',
      main: html`<p role="alert">You are signed in, but this page is not open to your account.</p>
<nav><a href="${links.profile}">Your account</a> <a href="${links.login}">Sign in as someone else</a></nav>`,
    };
  }
  return {
    title: 'Page not found',
    main: html`<p role="alert">There is no page at this address.</p>
<nav><a href="${links.profile}">Your account</a> <a href="${links.login}">Sign in</a></nav>`,
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
export function externalLoginRefusedPage(model: ExternalLoginRefusedPageModel): PageContent {
  return { title: 'Sign-in refused', main: html`<p role="alert">${model.message}</p><nav><a href="${model.links.login}">Back to the login page</a></nav>` };
}
