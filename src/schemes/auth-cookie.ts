import type { Config } from '../config/config.ts';
import { CookieProtector } from '../security/authentication/index.ts';

/**
 * The auth cookie's name (docs/reference/http.md): `gh.auth`, or `__Host-gh.auth` in production
 * (Secure, Path=/, no Domain, so no sibling subdomain or plain-HTTP page can plant it). The
 * Cookies scheme reads only this exact name; the endpoints write it (endpoints/auth-cookie.ts).
 */
export function authCookieName(config: Pick<Config, 'production'>): string {
  return config.production ? '__Host-gh.auth' : 'gh.auth';
}

/** The auth cookie's protector, keyed with the key ring's cookie secret for this cookie's purpose only. */
export function authCookieProtector(cookieSecret: string): CookieProtector {
  return new CookieProtector(cookieSecret, 'gh.auth');
}
