import type { FastifyReply } from 'fastify';
import { signInFailureProblem } from '../endpoints/problem-response.ts';
import type { SignInFailure } from '../identity/sign-in-result.ts';
import { sendProblem } from './problem.ts';

/** A failed sign-in (`signInFailureProblem`) on a Fastify reply. */
export function sendSignInFailure(reply: FastifyReply, result: SignInFailure): FastifyReply {
  return sendProblem(reply, signInFailureProblem(result));
}
