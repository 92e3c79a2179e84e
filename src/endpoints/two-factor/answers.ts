/** What the two-factor endpoints' answers share: no caching, pages or JSON, the return URL, form flags. */
import { type Static, Type } from '@sinclair/typebox';
import { prefersHtml } from '../browser-navigation.ts';
import type { EndpointRequest, EndpointResponse } from '../endpoint.ts';
import { localReturnUrl } from '../return-url.ts';

/** Answers about a sign-in or an account's second factors are never cached. */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });

/** The answer, not to be cached. */
export function noStore(response: EndpointResponse): EndpointResponse {
  return { ...response, headers: { ...response.headers, ...NO_STORE } };
}

/** The client ranks HTML first (a browser loading a page): a `GET` answers a page, JSON otherwise. */
export function wantsPage(request: Pick<EndpointRequest, 'headers'>): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && prefersHtml(accept);
}

/** Where the browser goes once the second step is done: ASP.NET's `ReturnUrl`, or `returnUrl`. */
export const ReturnQuery = Type.Object({ ReturnUrl: Type.Optional(Type.String({ maxLength: 2048 })), returnUrl: Type.Optional(Type.String({ maxLength: 2048 })) });
export type ReturnQuery = Static<typeof ReturnQuery>;

/** The query's return URL when it is a local path, else null. */
export function returnUrlOf(query: Readonly<Record<string, unknown>> | undefined): string | null {
  return localReturnUrl(query?.ReturnUrl ?? query?.returnUrl);
}

/** A check box as JSON (`true`) or as a form (`"true"`). */
export const Flag = Type.Union([Type.Boolean(), Type.Literal('true')]);

export function isOn(flag: boolean | 'true' | undefined): boolean {
  return flag === true || flag === 'true';
}
