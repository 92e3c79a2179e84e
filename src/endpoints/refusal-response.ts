import type { PolicyRefusal } from '../security/authentication/index.ts';
import { problem } from '../security/problem-details.ts';
import { isBrowserNavigation } from './browser-navigation.ts';
import type { EndpointResponse } from './endpoint.ts';
import { problemResponse } from './problem-response.ts';

/** Where a browser is sent to sign in, with the page to come back to (`MembershipPaths.loginFor`). */
export type LoginPage = (returnUrl: string) => string;

/**
 * A refusal of the evaluator as the Fastify host's problem result handler answers it
 * (http/authorization-result-handler.ts): a challenge is 401 problem+json with the challenges'
 * `WWW-Authenticate` values and the first one's detail, or a 302 to the login page for a browser
 * navigating to an endpoint whose challenge comes from the Cookies scheme; a forbid is 403 with
 * the schemes and no hint of the requirement.
 */
export function refusalResponse(refusal: PolicyRefusal, request: { readonly url: string; readonly headers: Readonly<Record<string, string | string[] | undefined>> }, loginPage?: LoginPage): EndpointResponse {
  if (refusal.kind === 'forbid') return problemResponse(problem('GH_FORBIDDEN', undefined, { policy: [...refusal.schemes] }));
  const { challenges } = refusal;
  if (loginPage !== undefined && challenges.some((challenge) => challenge.redirectToLogin) && isBrowserNavigation(request.headers)) {
    return { status: 302, headers: { location: loginPage(request.url) } };
  }
  const values = [...new Set(challenges.flatMap((challenge) => (challenge.wwwAuthenticate ? [challenge.wwwAuthenticate] : [])))];
  const detail = challenges.find((challenge) => challenge.detail)?.detail;
  return problemResponse(problem('GH_UNAUTHENTICATED', detail), values.length > 0 ? { 'www-authenticate': values.join(', ') } : {});
}
