import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Clock } from '../platform/clock.ts';
import { type AuthenticateResult, COOKIES_SCHEME, cookieTicketOf, type PolicyAuthentication } from '../security/authentication/index.ts';
import { setAuthCookie } from '../endpoints/auth-cookie.ts';
import { CrossSitePolicy } from '../endpoints/cross-site.ts';
import { problem, sendProblem } from './problem.ts';
import { replyCookies } from './reply-cookies.ts';

/** Runs once a request is authorized, before the endpoint; false when it has answered the request. */
export type AuthorizedCheck = (request: FastifyRequest, reply: FastifyReply, authentication: PolicyAuthentication) => boolean;

/**
 * What a request authenticated by the auth cookie needs after authorization: the cross-site
 * check of docs/reference/http.md (403 for an unsafe request from an origin we do not trust), and the
 * sliding renewal of a persistent cookie (a browser-session cookie needs no new Set-Cookie: only
 * the server-side expiry moves). Requests authenticated otherwise pass untouched.
 */
export function cookieSessionCheck(config: Pick<Config, 'production' | 'publicUrl' | 'corsOrigins'>, clock: Clock): AuthorizedCheck {
  const crossSite = new CrossSitePolicy([config.publicUrl.origin, ...config.corsOrigins]);
  return (request, reply, authentication) => {
    // Bearer and API-key requests (the benchmarked ones) carry no cookie: one look and done.
    if (request.headers.cookie === undefined) return true;
    const result = cookieSuccess(authentication);
    if (result === undefined) return true;
    if (!crossSite.allows(request)) {
      sendProblem(reply, problem('GH_FORBIDDEN', 'Cross-site requests with the auth cookie are refused.', { policy: [COOKIES_SCHEME] }));
      return false;
    }
    const ticket = cookieTicketOf(result);
    if (ticket?.renewed && ticket.persistent) setAuthCookie(replyCookies(reply), config, ticket, clock.now());
    return true;
  };
}

/** The Cookies scheme's success among the schemes tried, if it vouched for the caller. */
function cookieSuccess(authentication: PolicyAuthentication): AuthenticateResult | undefined {
  for (const { result } of authentication.attempts) {
    if (result.kind === 'success' && result.scheme === COOKIES_SCHEME) return result;
  }
  return undefined;
}
