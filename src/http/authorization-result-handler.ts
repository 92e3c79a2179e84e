import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationRequest, PolicyAuthentication } from '../security/authentication/index.ts';
import { isBrowserNavigation } from './browser-navigation.ts';
import { MembershipPaths } from './membership-paths.ts';
import { problem, sendProblem } from './problem.ts';

/**
 * Turns a failed authorization into a response (ASP.NET's `IAuthorizationMiddlewareResultHandler`).
 * Replace it to answer differently; the decision itself is made before it is called.
 */
export interface AuthorizationResultHandler {
  challenge(request: FastifyRequest, reply: FastifyReply, authentication: PolicyAuthentication): FastifyReply;
  forbid(request: FastifyRequest, reply: FastifyReply, schemes: readonly string[]): FastifyReply;
}

/**
 * 401 problem+json with the challenge of the scheme that judged bad credentials, or of every
 * scheme consulted when none were presented; 403 with the schemes and no hint of the requirement.
 * A browser navigating to a page whose challenge comes from the Cookies scheme is sent to the
 * login page at `paths` instead (302), with the page to come back to; API and XHR requests never are.
 */
export function createProblemResultHandler(paths: MembershipPaths): AuthorizationResultHandler {
  return {
    challenge(request, reply, authentication) {
      const failed = authentication.attempts.filter(({ result }) => result.kind === 'fail');
      // Schemes read the query as sent (a record of strings), which Fastify types as unknown.
      const asSent = request as FastifyRequest<{ Querystring: AuthenticationRequest['query'] }>;
      const challenges = (failed.length > 0 ? failed : authentication.attempts).map(({ handler, result }) =>
        handler.challenge(result, asSent),
      );
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
