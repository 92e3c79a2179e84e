import type { EndpointResponse } from './endpoint.ts';

/** Answers about a caller or a sign-in are never cached by a browser or a proxy. */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });

/** The answer, not to be cached (its own `cache-control`, if any, gives way). */
export function noStore(response: EndpointResponse): EndpointResponse {
  return { ...response, headers: { ...response.headers, ...NO_STORE } };
}
