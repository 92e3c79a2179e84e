import type { Html } from '../pages/html.ts';
import type { PageRendering } from '../pages/rendering.ts';
import type { EndpointResponse } from './endpoint.ts';

/** A page with its security headers (the CSP allowing the passkey script on the pages that load it). */
export function pageResponse(pages: Pick<PageRendering, 'headersFor'>, page: Html, status = 200): EndpointResponse {
  return { status, headers: pages.headersFor(page), body: page.toString() };
}

/** After a successful form post: 303 See Other, so a reload does not post again. */
export function seeOther(location: string, extra: Omit<EndpointResponse, 'status'> = {}): EndpointResponse {
  return { ...extra, status: 303, headers: { ...extra.headers, location } };
}

/** A redirect of a page's `GET` (302 Found), such as a list that lives on another page. */
export function found(location: string, extra: Omit<EndpointResponse, 'status'> = {}): EndpointResponse {
  return { ...extra, status: 302, headers: { ...extra.headers, location } };
}
