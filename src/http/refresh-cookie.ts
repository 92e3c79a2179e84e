import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';

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

export function setRefreshCookie(reply: FastifyReply, config: Pick<Config, 'production'>, path: string, token: string, expiresAt: number): void {
  reply.setCookie(refreshCookieName(config), token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.production,
    path,
    expires: new Date(expiresAt),
  });
}

export function clearRefreshCookie(reply: FastifyReply, config: Pick<Config, 'production'>, path: string): void {
  reply.clearCookie(refreshCookieName(config), { httpOnly: true, sameSite: 'strict', secure: config.production, path });
}

export function refreshCookieOf(request: FastifyRequest, config: Pick<Config, 'production'>): string | undefined {
  return request.cookies[refreshCookieName(config)];
}
