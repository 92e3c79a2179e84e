/**
 * Antiforgery for form posts (docs/reference/http.md), for every host: a form-encoded or multipart
 * request with an unsafe method must carry `__RequestVerificationToken`, derived from the
 * antiforgery cookie for the caller; missing or wrong is a 400 naming the field, and the endpoint
 * never runs. JSON bodies are exempt: a browser cannot send them cross-site without a CORS
 * preflight. The field is removed once checked, so endpoints with closed schemas never see it.
 */
import { ANTIFORGERY_FIELD, Antiforgery } from '../security/crypto/antiforgery.ts';
import { GatehouseError } from '../security/errors.ts';
import { type CookieSource, readCookie, type ResponseCookies } from './cookies.ts';
import { UNSAFE_METHODS } from './cross-site.ts';

export interface AntiforgeryOptions {
  /** The key ring's antiforgery secret. */
  readonly secret: string;
  /** `__Host-` prefix and `Secure` on the cookie. */
  readonly production: boolean;
}

const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

export function antiforgeryCookieName(production: boolean): string {
  return production ? '__Host-gh.af' : 'gh.af';
}

/** True for a method a form post's check applies to. */
export function isUnsafeMethod(method: string): boolean {
  return UNSAFE_METHODS.has(method);
}

/** A url-encoded or multipart body: what a browser posts cross-site without a preflight. */
export function isFormContentType(contentType: string | string[] | undefined): boolean {
  return typeof contentType === 'string' && FORM_TYPES.test(contentType);
}

/** The antiforgery cookie and request tokens of one service. */
export class AntiforgeryTokens {
  private readonly tokens: Antiforgery;
  readonly cookieName: string;

  constructor(private readonly options: AntiforgeryOptions) {
    this.tokens = new Antiforgery(options.secret);
    this.cookieName = antiforgeryCookieName(options.production);
  }

  /** The request token for a page's forms; the antiforgery cookie goes to `cookies` when the browser has none (or a bad one). */
  requestToken(request: CookieSource, subject: string | null, cookies: ResponseCookies): string {
    let cookieToken = readCookie(request, this.cookieName);
    if (cookieToken === undefined || !this.tokens.validate(cookieToken, this.tokens.requestToken(cookieToken, null), null)) {
      cookieToken = this.tokens.newCookieToken();
      // A session cookie: it lives as long as the browser, HttpOnly since only the server reads it.
      cookies.set(this.cookieName, cookieToken, { httpOnly: true, sameSite: 'strict', path: '/', secure: this.options.production });
    }
    return this.tokens.requestToken(cookieToken, subject);
  }

  /**
   * The check of a form post's body: the field removed when it holds, the 400 otherwise. Bodies
   * that are not forms pass untouched.
   */
  check(request: CookieSource & { readonly headers: { readonly 'content-type'?: string | string[] | undefined } }, form: unknown, subject: string | null): GatehouseError | null {
    if (!isFormContentType(request.headers['content-type'])) return null;
    const fields = form as Record<string, unknown> | undefined;
    if (this.tokens.validate(readCookie(request, this.cookieName), fields?.[ANTIFORGERY_FIELD], subject)) {
      delete fields![ANTIFORGERY_FIELD];
      return null;
    }
    return GatehouseError.validation({ [ANTIFORGERY_FIELD]: [(m) => m.problemFormExpired] }, (m) => m.problemAntiforgeryTokenWrong);
  }
}
