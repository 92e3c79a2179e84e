import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';

/**
 * The refresh cookie of docs/reference/http.md: HttpOnly, SameSite=Strict, only sent to the token
 * endpoints: its `path` is theirs (`MembershipPaths.auth`, `/auth` without a prefix).
 */
export const REFRESH_COOKIE = 'gh.refresh';

export function setRefreshCookie(reply: FastifyReply, config: Pick<Config, 'production'>, path: string, token: string, expiresAt: number): void {
  reply.setCookie(REFRESH_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.production,
    path,
    expires: new Date(expiresAt),
  });
}

export function clearRefreshCookie(reply: FastifyReply, config: Pick<Config, 'production'>, path: string): void {
  reply.clearCookie(REFRESH_COOKIE, { httpOnly: true, sameSite: 'strict', secure: config.production, path });
}

export function refreshCookieOf(request: FastifyRequest): string | undefined {
  return request.cookies[REFRESH_COOKIE];
}
