import type { Config } from '../config/config.ts';
import type { Clock } from '../platform/clock.ts';
import { type AuthenticateResult, COOKIES_SCHEME, cookieTicketOf, type PolicyAuthentication } from '../security/authentication/index.ts';
import { problem, type ProblemBody } from '../security/problem-details.ts';
import { setAuthCookie } from './auth-cookie.ts';
import { CookieList } from './cookies.ts';
import { CrossSitePolicy, type CrossSiteRequest } from './cross-site.ts';
import type { ResponseCookie } from './endpoint.ts';

/** What the check needs: the origins trusted with the cookie, its production attributes, the time. */
export interface CookieSessionOptions {
  /** `PUBLIC_URL`'s origin and `CORS_ORIGINS`. */
  readonly trustedOrigins: readonly string[];
  /** `__Host-` prefix and `Secure` on the renewed cookie. */
  readonly production: boolean;
  readonly clock: Pick<Clock, 'now'>;
}

/** The origins trusted with the auth cookie: the service's own and `CORS_ORIGINS`. */
export function trustedOrigins(config: Pick<Config, 'publicUrl' | 'corsOrigins'>): string[] {
  return [config.publicUrl.origin, ...config.corsOrigins];
}

/** What follows an authorized request: its refusal, or the renewed auth cookie to send with its answer. */
export type CookieSessionVerdict =
  | { readonly kind: 'refused'; readonly problem: ProblemBody }
  | { readonly kind: 'allowed'; readonly renewed?: ResponseCookie };

const ALLOWED: CookieSessionVerdict = Object.freeze({ kind: 'allowed' });

/**
 * What a request authenticated by the auth cookie needs after authorization, on every host: the
 * cross-site check of docs/reference/http.md (403 for an unsafe request from an origin we do not
 * trust), and the sliding renewal of a persistent cookie (a browser-session cookie needs no new
 * Set-Cookie: only the server-side expiry moves). Requests authenticated otherwise pass untouched.
 */
export function cookieSessionCheck({ trustedOrigins, production, clock }: CookieSessionOptions) {
  const crossSite = new CrossSitePolicy(trustedOrigins);
  const config = { production };
  const refused: CookieSessionVerdict = {
    kind: 'refused',
    problem: problem('GH_FORBIDDEN', (m) => m.problemCrossSiteAuthCookie, { policy: [COOKIES_SCHEME] }),
  };
  return (request: CrossSiteRequest, authentication: PolicyAuthentication): CookieSessionVerdict => {
    // Bearer and API-key requests (the benchmarked ones) carry no cookie: one look and done.
    if (request.headers.cookie === undefined) return ALLOWED;
    const result = cookieSuccess(authentication);
    if (result === undefined) return ALLOWED;
    if (!crossSite.allows(request)) return refused;
    const ticket = cookieTicketOf(result);
    if (!ticket?.renewed || !ticket.persistent) return ALLOWED;
    const cookies = new CookieList();
    setAuthCookie(cookies, config, ticket, clock.now());
    return { kind: 'allowed', renewed: cookies.cookies[0]! };
  };
}

/** The Cookies scheme's success among the schemes tried, if it vouched for the caller. */
function cookieSuccess(authentication: PolicyAuthentication): AuthenticateResult | undefined {
  for (const { result } of authentication.attempts) {
    if (result.kind === 'success' && result.scheme === COOKIES_SCHEME) return result;
  }
  return undefined;
}
