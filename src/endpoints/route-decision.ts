/**
 * The decision of one request at an application's route, for hosts that run the route's handler
 * themselves once it is decided (Hono's middleware, the Web entry's protected handlers): the
 * route's authorization (endpoints/authorize-endpoint.ts), then what follows a success with the
 * auth cookie (endpoints/cookie-session-check.ts). Its refusals are those of Gatehouse's own
 * endpoints: 401 (or the login page for a browser), 403, the cross-site 403.
 */
import { ClaimsPrincipal } from '../security/claims/index.ts';
import type { EndpointAuthorization, ResolvedEndpointAuthorization } from './authorize-endpoint.ts';
import type { CookieSessionVerdict } from './cookie-session-check.ts';
import type { CrossSiteRequest } from './cross-site.ts';
import type { EndpointResponse, ResponseCookie } from './endpoint.ts';
import type { PolicyAuthentication } from '../security/authentication/index.ts';
import { problemResponse } from './problem-response.ts';
import { type LoginPage, refusalResponse } from './refusal-response.ts';
import type { ReceivedRequest } from './web-exchange.ts';

/** The caller of a decided request, and the route's answer when it is refused. */
export type RouteDecision =
  | { readonly kind: 'refused'; readonly principal: ClaimsPrincipal; readonly response: EndpointResponse }
  /** `renewed`: the auth cookie to send again with the route's answer (its sliding expiry). */
  | { readonly kind: 'admitted'; readonly principal: ClaimsPrincipal; readonly renewed: ResponseCookie | undefined };

const ANONYMOUS: RouteDecision = Object.freeze({ kind: 'admitted', principal: ClaimsPrincipal.anonymous(), renewed: undefined });

export interface RouteDecisionOptions {
  /** The auth cookie's cross-site check and renewal (`cookieSessionCheck`). */
  readonly cookieSession: (request: CrossSiteRequest, authentication: PolicyAuthentication) => CookieSessionVerdict;
  /** Where a browser is sent to sign in; none for an API, whose callers are never redirected. */
  readonly loginPage?: LoginPage;
}

/**
 * Decides requests at their routes. An anonymous route admits an anonymous caller without reading
 * the request (a host that knows the route is anonymous need not build it); a caller known at
 * once is decided without waiting for the schemes.
 */
export function routeDecisions({ cookieSession, loginPage }: RouteDecisionOptions) {
  const verdictOf = (decided: EndpointAuthorization, request: ReceivedRequest): RouteDecision => {
    const { principal, outcome, authentication } = decided;
    if (outcome.kind !== 'success') return { kind: 'refused', principal, response: refusalResponse(outcome, request, loginPage) };
    const verdict = authentication === undefined ? undefined : cookieSession(request, authentication);
    if (verdict?.kind === 'refused') return { kind: 'refused', principal, response: problemResponse(verdict.problem) };
    return { kind: 'admitted', principal, renewed: verdict?.renewed };
  };
  return async (route: ResolvedEndpointAuthorization, request: ReceivedRequest): Promise<RouteDecision> => {
    if (route.authorize === null) return ANONYMOUS;
    const known = route.recognize?.(request);
    return verdictOf(known ?? (await route.authorize(request)), request);
  };
}
