import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from './constant-time.ts';

/** The form field every form post carries (ASP.NET's name, so forms ported from it keep working). */
export const ANTIFORGERY_FIELD = '__RequestVerificationToken';

/**
 * Antiforgery tokens, as ASP.NET Core pairs them: a random cookie token, and a request token
 * (the form field) derived from it with a server secret. A page on another site can make the
 * browser send the cookie but can neither read it nor compute the field, so a forged form post
 * fails. The request token is also bound to the signed-in user (none for anonymous forms), so a
 * token lifted from one account's page does not serve another's.
 */
export class Antiforgery {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(secret, 'base64url');
  }

  /** A fresh cookie token: 256 random bits. */
  newCookieToken(): string {
    return randomBytes(32).toString('base64url');
  }

  /** The form field's value for a cookie token and the user (null when anonymous). */
  requestToken(cookieToken: string, userId: string | null): string {
    return createHmac('sha256', this.key).update(`gatehouse-antiforgery\0${cookieToken}\0${userId ?? ''}`).digest('base64url');
  }

  /** True when both tokens are present and the field was derived from this cookie for this user. */
  validate(cookieToken: string | undefined, requestToken: unknown, userId: string | null): boolean {
    if (cookieToken === undefined || !COOKIE_TOKEN.test(cookieToken)) return false;
    if (typeof requestToken !== 'string' || requestToken.length > 128) return false;
    return constantTimeEqual(Buffer.from(this.requestToken(cookieToken, userId)), Buffer.from(requestToken));
  }
}

/** What `newCookieToken` makes: anything else in the cookie is refused unread. */
const COOKIE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
