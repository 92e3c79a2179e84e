import type { Config } from '../config/config.ts';
import { authCookieName } from '../schemes/auth-cookie.ts';
import type { ResponseCookies } from './cookies.ts';

/**
 * Writing the auth cookie of docs/reference/http.md (its name and protector: schemes/auth-cookie.ts).
 * HttpOnly and SameSite=Lax. Persistent (Expires/Max-Age) only for "remember me"; otherwise it
 * dies with the browser.
 */
export interface AuthCookie {
  /** The sealed session token. */
  readonly value: string;
  readonly expiresAt: number;
  readonly persistent: boolean;
}

/** `now` is the clock's time, so Max-Age agrees with Expires under an injected clock. */
export function setAuthCookie(cookies: ResponseCookies, config: Pick<Config, 'production'>, cookie: AuthCookie, now: number): void {
  const lifetime = cookie.persistent
    ? { expires: new Date(cookie.expiresAt), maxAge: Math.max(0, Math.floor((cookie.expiresAt - now) / 1000)) }
    : {};
  cookies.set(authCookieName(config), cookie.value, { ...attributes(config), ...lifetime });
}

export function clearAuthCookie(cookies: ResponseCookies, config: Pick<Config, 'production'>): void {
  cookies.set(authCookieName(config), '', { ...attributes(config), expires: new Date(0), maxAge: 0 });
}

function attributes(config: Pick<Config, 'production'>) {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: config.production } as const;
}
