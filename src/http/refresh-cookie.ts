import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';

/** The refresh cookie of SPEC section 4: HttpOnly, SameSite=Strict, only sent to /auth. */
export const REFRESH_COOKIE = 'gh.refresh';
const REFRESH_COOKIE_PATH = '/auth';

export function setRefreshCookie(reply: FastifyReply, config: Pick<Config, 'production'>, token: string, expiresAt: number): void {
  reply.setCookie(REFRESH_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.production,
    path: REFRESH_COOKIE_PATH,
    expires: new Date(expiresAt),
  });
}

export function clearRefreshCookie(reply: FastifyReply, config: Pick<Config, 'production'>): void {
  reply.clearCookie(REFRESH_COOKIE, { httpOnly: true, sameSite: 'strict', secure: config.production, path: REFRESH_COOKIE_PATH });
}

export function refreshCookieOf(request: FastifyRequest): string | undefined {
  return request.cookies[REFRESH_COOKIE];
}
