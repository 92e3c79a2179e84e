import type { Config } from '../../config/config.ts';
import type { ResponseCookie } from '../endpoint.ts';

/**
 * The refresh cookie of docs/reference/http.md: HttpOnly, SameSite=Strict, only sent to the token
 * endpoints: its `path` is theirs (`MembershipPaths.auth`, `/auth` without a prefix).
 */
export const REFRESH_COOKIE = 'gh.refresh';

/**
 * `__Secure-gh.refresh` in production: a browser accepts a `__Secure-` cookie only over https with
 * `Secure`, so a page on plain http (or a sibling subdomain's script writing an unprefixed cookie
 * of the same name) cannot plant one. `__Host-` would also pin the host, but it requires `Path=/`,
 * and the cookie is kept to the token endpoints' path.
 */
export function refreshCookieName(config: Pick<Config, 'production'>): string {
  return config.production ? `__Secure-${REFRESH_COOKIE}` : REFRESH_COOKIE;
}

/** The refresh cookie carrying `token` until `expiresAt` (epoch ms). */
export function refreshCookie(config: Pick<Config, 'production'>, path: string, token: string, expiresAt: number): ResponseCookie {
  return { name: refreshCookieName(config), value: token, attributes: { ...attributesOf(config, path), expires: new Date(expiresAt) } };
}

/** The refresh cookie cleared: empty, expired at the epoch and of no age (as Fastify's cookie plugin clears, which it used to write). */
export function clearedRefreshCookie(config: Pick<Config, 'production'>, path: string): ResponseCookie {
  return { name: refreshCookieName(config), value: '', attributes: { ...attributesOf(config, path), expires: new Date(0), maxAge: 0 } };
}

/** The token a request's refresh cookie carries. */
export function refreshCookieOf(cookies: Readonly<Record<string, string | undefined>>, config: Pick<Config, 'production'>): string | undefined {
  return cookies[refreshCookieName(config)];
}

function attributesOf(config: Pick<Config, 'production'>, path: string) {
  return { httpOnly: true, sameSite: 'strict', secure: config.production, path } as const;
}
