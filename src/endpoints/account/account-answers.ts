import { prefersHtml } from '../browser-navigation.ts';
import type { EndpointRequest } from '../endpoint.ts';

/** Answers about a signed-in user are never cached by the browser or a proxy. */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });

/**
 * True when the client ranks HTML first (a browser loading a page): `GET` under `/account/*`
 * answers a page then, JSON otherwise (docs/reference/http.md). A bare `*\/*` (curl, fetch) gets JSON.
 */
export function wantsPage(request: Pick<EndpointRequest, 'headers'>): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && prefersHtml(accept);
}
