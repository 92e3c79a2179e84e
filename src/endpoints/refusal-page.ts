import type { PageRendering } from '../pages/rendering.ts';
import { PROBLEM_JSON } from '../security/problem-details.ts';
import { isBrowserNavigation } from './browser-navigation.ts';
import type { EndpointResponse } from './endpoint.ts';
import { inReadersLanguage } from './problem-language.ts';

/**
 * The membership's paths under `prefix` (its pages, token endpoints and admin API), whose
 * refusals a browser sees as pages. The prefix is a plain path (MembershipPaths checks it).
 */
export function membershipPathTest(prefix: string): (url: string) => boolean {
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:account|auth|admin)(?:[/?]|$)`);
  return (url) => pattern.test(url);
}

/** What the refusal page of an answer is decided on: its status and type, and the request's target and headers. */
export interface RefusedAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * A 403 or 404 problem under the membership paths becomes a page when a browser navigated there
 * (the negotiation of the login redirect: `isBrowserNavigation`), rendered by the error page of
 * the service's page options; API clients, scripts and other paths keep problem+json. An answer
 * that is not problem+json (a replaced result handler's own) is left as it is. Returns the page's
 * headers and text, or undefined to keep the answer.
 */
export function refusalPageFor(pages: Pick<PageRendering, 'headers' | 'render' | 'language'>, prefix: string) {
  const isMembershipPath = membershipPathTest(prefix);
  return (answer: RefusedAnswer): { readonly headers: Readonly<Record<string, string>>; readonly body: string } | undefined => {
    if (answer.status !== 403 && answer.status !== 404) return undefined;
    if (!(answer.contentType ?? '').startsWith(PROBLEM_JSON) || !isMembershipPath(answer.url) || !isBrowserNavigation(answer.headers)) return undefined;
    return { headers: pages.headers, body: pages.render('error', { status: answer.status }, pages.language(answer.headers['accept-language'])).toString() };
  };
}

/** The pages' parts a refusal needs: the error page, and the languages of the problems. */
export type RefusalPages = Pick<PageRendering, 'headers' | 'render' | 'language' | 'catalogues'>;

/**
 * A refusal as its reader gets it: a browser's 403 or 404 under the membership paths as the error
 * page (`refusalPageFor`), any other problem in the reader's language (`inReadersLanguage`).
 */
export function refusalForReader(pages: RefusalPages, prefix: string) {
  const pageFor = refusalPageFor(pages, prefix);
  return (answer: EndpointResponse, request: Pick<RefusedAnswer, 'url' | 'headers'>): EndpointResponse => {
    const page = pageFor({ status: answer.status, contentType: answer.headers?.['content-type'], url: request.url, headers: request.headers });
    if (page !== undefined) return { ...answer, headers: page.headers, body: page.body };
    return inReadersLanguage(answer, pages.catalogues, request.headers['accept-language']);
  };
}
