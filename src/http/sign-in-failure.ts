import type { FastifyReply } from 'fastify';
import type { SignInFailure } from '../identity/sign-in-result.ts';
import { problem, sendProblem } from './problem.ts';

/**
 * A failed sign-in as docs/reference/http.md answers it, on every sign-in route: 401 problem+json with
 * `succeeded:false` and only the flags SignInManager chose to reveal (never the user it found).
 */
export function sendSignInFailure(reply: FastifyReply, result: SignInFailure): FastifyReply {
  const flags = {
    ...(result.requiresTwoFactor ? { requiresTwoFactor: true } : {}),
    ...(result.isLockedOut ? { isLockedOut: true } : {}),
    ...(result.isNotAllowed ? { isNotAllowed: true } : {}),
  };
  return sendProblem(reply, problem('GH_SIGNIN_FAILED', 'The sign-in failed.', { succeeded: false, ...flags }));
}
