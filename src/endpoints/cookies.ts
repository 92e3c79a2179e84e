/**
 * Cookies as endpoints and their helpers read and write them on any host: read from the request's
 * `Cookie` header, written as `ResponseCookie`s the host turns into `Set-Cookie` lines. The helpers
 * that seal sign-in cookies (cookie-sign-in.ts and its neighbours) take these two small shapes, so
 * the same code serves an endpoint's answer and a host's own reply.
 */
import { parse as parseCookies, serialize } from 'cookie';
import type { ResponseCookie, CookieAttributes } from './endpoint.ts';

/** What a cookie is read from: the request's headers (a Fastify request, an endpoint request). */
export interface CookieSource {
  readonly headers: { readonly cookie?: string | string[] | undefined };
}

/** Where the cookies of an answer go. */
export interface ResponseCookies {
  set(name: string, value: string, attributes: CookieAttributes): void;
}

/** One cookie's value, parsed from the header only when asked for. */
export function readCookie(request: CookieSource, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  return parseCookies(Array.isArray(header) ? header.join('; ') : header)[name];
}

/** The cookies an endpoint sets, collected for its answer. */
export class CookieList implements ResponseCookies {
  readonly cookies: ResponseCookie[] = [];

  set(name: string, value: string, attributes: CookieAttributes): void {
    this.cookies.push({ name, value, attributes });
  }
}

/** A cookie as its `Set-Cookie` line. */
export function setCookieLine({ name, value, attributes }: ResponseCookie): string {
  return serialize(name, value, attributes);
}
