import { parse as parseCookieHeader } from 'cookie';
import type { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import { AuthenticateResult } from '../../authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from '../../authentication-handler.ts';
import { type AuthenticationRequest, singleHeader } from '../../authentication-request.ts';
import type { CredentialSources } from '../../credential-sources.ts';
import type { RevocationConcerns } from '../../revocation-concerns.ts';
import type { CookieProtector } from './cookie-protector.ts';

export const COOKIES_SCHEME = 'Cookies';

/**
 * A cookie session ends at a security change of its user, the user's deletion, or its own
 * sign-out; a claims change gives it new claims (its socket carries them from then on).
 */
export const COOKIES_REVOCATIONS: RevocationConcerns = Object.freeze({
  ofTheUser: Object.freeze(['user', 'user-deleted', 'session'] as const),
});

/** What the session behind a cookie says: the signed-in user, or nothing. */
export type CookieSessionValidation =
  | {
      readonly valid: true;
      readonly principal: ClaimsPrincipal;
      /** When the session ends unless used again (epoch ms). */
      readonly expiresAt: number;
      readonly persistent: boolean;
      /** The expiry slid forward on this request: a persistent cookie must be sent again. */
      readonly renewed: boolean;
    }
  | { readonly valid: false };

/** Where a request that uses a session comes from: what "where you are signed in" shows of it. */
export interface SessionClient {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

/**
 * Looks a session token up in the store; implemented outside the core (`identity/sessions.ts`).
 * `client` is given for a request's use of the session, not for a socket's re-check.
 */
export interface CookieSessionValidator {
  validate(sessionToken: string, client?: SessionClient): Promise<CookieSessionValidation>;
}

export interface CookiesHandlerOptions {
  readonly validator: CookieSessionValidator;
  /** Opens the cookie; keyed with the key ring's cookie secret. */
  readonly protector: CookieProtector;
  /** `gh.auth`, or `__Host-gh.auth` in production: only this exact name is read. */
  readonly cookieName: string;
}

/** What the HTTP ring needs to renew a cookie that authenticated a request. */
export interface CookieTicket {
  /** The cookie's value as presented: renewal re-sends it with a new expiry. */
  readonly value: string;
  readonly expiresAt: number;
  readonly persistent: boolean;
  readonly renewed: boolean;
}

/** The ticket of each success this scheme returned (results are plain values, tickets ride beside them). */
const tickets = new WeakMap<AuthenticateResult, CookieTicket>();

/** The cookie ticket of a Cookies success, or undefined for any other result. */
export function cookieTicketOf(result: AuthenticateResult): CookieTicket | undefined {
  return tickets.get(result);
}

/**
 * The `Cookies` scheme (docs/reference/http.md): an encrypted, authenticated cookie holding a session
 * token whose session lives in the store, so sign-out and revocation end it on every instance.
 * A missing, unreadable, foreign or ended cookie is no credential at all (`noResult`), never an
 * error: the caller is simply anonymous. The Cookie header is parsed only here, only when sent.
 */
export class CookiesHandler implements AuthenticationHandler {
  readonly scheme = COOKIES_SCHEME;
  readonly credentials: CredentialSources;
  readonly revocations = COOKIES_REVOCATIONS;

  constructor(private readonly options: CookiesHandlerOptions) {
    this.credentials = Object.freeze({ cookies: Object.freeze([options.cookieName]) });
  }

  authenticate(request: AuthenticationRequest): AuthenticateResult | Promise<AuthenticateResult> {
    const value = this.cookieOf(request);
    if (value === undefined) return AuthenticateResult.noResult();
    const sessionToken = this.options.protector.unprotect(value);
    if (sessionToken === null) return AuthenticateResult.noResult();
    const userAgent = singleHeader(request, 'user-agent');
    return this.fromSession(value, sessionToken, { ip: request.ip ?? null, userAgent: userAgent ?? null });
  }

  private async fromSession(value: string, sessionToken: string, client: SessionClient): Promise<AuthenticateResult> {
    const session = await this.options.validator.validate(sessionToken, client);
    if (!session.valid) return AuthenticateResult.noResult();
    const result = AuthenticateResult.success(this.scheme, session.principal, session.expiresAt);
    tickets.set(result, { value, expiresAt: session.expiresAt, persistent: session.persistent, renewed: session.renewed });
    return result;
  }

  private cookieOf(request: AuthenticationRequest): string | undefined {
    const name = this.options.cookieName;
    if (request.cookies !== undefined) return request.cookies[name];
    const header = request.headers.cookie;
    if (header === undefined) return undefined;
    // A repeated Cookie header (HTTP/2 may split it) is read as one list.
    return parseCookieHeader(Array.isArray(header) ? header.join('; ') : header)[name];
  }

  /** A browser asking for a page is sent to the login page; anyone else gets the Bearer challenge. */
  challenge(): Challenge {
    return CHALLENGE;
  }
}

const CHALLENGE: Challenge = Object.freeze({ wwwAuthenticate: 'Bearer', redirectToLogin: true });
