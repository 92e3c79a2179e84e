import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Challenge, PolicyAuthentication, PolicyRefusal } from '../security/authentication/index.ts';
import { isBrowserNavigation } from '../endpoints/browser-navigation.ts';
import { MembershipPaths } from '../endpoints/membership-paths.ts';
import { problem, sendProblem } from './problem.ts';

/**
 * Turns a refusal into a response (ASP.NET's `IAuthorizationMiddlewareResultHandler`): a challenge
 * into a 401, a forbid into a 403. Replace it to answer differently; the decision itself is the
 * `PolicyEvaluator`'s, made before it is called, for a route's policy and a resource check alike.
 */
export interface AuthorizationResultHandler {
  /**
   * A caller no scheme vouched for. `challenges` are what the schemes asked say (`WWW-Authenticate`,
   * the problem's `detail`, whether a browser goes to the login page); `authentication` is what each
   * of them made of the request.
   */
  challenge(request: FastifyRequest, reply: FastifyReply, authentication: PolicyAuthentication, challenges: readonly Challenge[]): FastifyReply;
  /** A known caller who may not act; `schemes` name how the caller was known. */
  forbid(request: FastifyRequest, reply: FastifyReply, schemes: readonly string[]): FastifyReply;
}

/** Answers a refusal of the evaluator through the result handler: its one rendering over HTTP. */
export function renderRefusal(handler: AuthorizationResultHandler, request: FastifyRequest, reply: FastifyReply, refusal: PolicyRefusal): FastifyReply {
  if (refusal.kind === 'challenge') return handler.challenge(request, reply, refusal.authentication, refusal.challenges);
  return handler.forbid(request, reply, refusal.schemes);
}

/**
 * 401 problem+json with the challenges' `WWW-Authenticate` values; 403 with the schemes and no hint
 * of the requirement. A browser navigating to a page whose challenge comes from the Cookies scheme
 * is sent to the login page at `paths` instead (302), with the page to come back to; API and XHR
 * requests never are.
 */
export function createProblemResultHandler(paths: MembershipPaths): AuthorizationResultHandler {
  return {
    challenge(request, reply, _authentication, challenges) {
      if (challenges.some((challenge) => challenge.redirectToLogin) && isBrowserNavigation(request.headers)) {
        return reply.redirect(paths.loginFor(request.url), 302);
      }
      const headers = [...new Set(challenges.flatMap((challenge) => (challenge.wwwAuthenticate ? [challenge.wwwAuthenticate] : [])))];
      if (headers.length > 0) reply.header('www-authenticate', headers.join(', '));
      const detail = challenges.find((challenge) => challenge.detail)?.detail;
      return sendProblem(reply, problem('GH_UNAUTHENTICATED', detail));
    },

    forbid(_request, reply, schemes) {
      return sendProblem(reply, problem('GH_FORBIDDEN', undefined, { policy: [...schemes] }));
    },
  };
}

/** The problem result handler at docs/reference/http.md's paths (no prefix). */
export const problemResultHandler = createProblemResultHandler(MembershipPaths.ROOT);
