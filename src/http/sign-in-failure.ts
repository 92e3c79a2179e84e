import type { FastifyReply } from 'fastify';
import type { SignInResult } from '../identity/sign-in-result.ts';
import { problem, sendProblem } from './problem.ts';

/**
 * A failed sign-in as SPEC section 4 answers it, on every sign-in route: 401 problem+json with
 * `succeeded:false` and only the flags SignInManager chose to reveal.
 */
export function sendSignInFailure(reply: FastifyReply, result: Extract<SignInResult, { succeeded: false }>): FastifyReply {
  const { succeeded: _, ...flags } = result;
  return sendProblem(reply, problem('GH_SIGNIN_FAILED', 'The sign-in failed.', { succeeded: false, ...flags }));
}
