import type { FastifyReply } from 'fastify';
import type { HashingBusyError } from '../identity/hashing-busy.ts';
import { problem, type ProblemBody } from './problem.ts';

/**
 * The answer when the password-hashing queue is full (decision 0054): 503 at once, with
 * `Retry-After` the time the queue takes to drain, rather than a place in a queue seconds long.
 * Nothing was checked, counted or written: the same request may simply be made again.
 */
export function overloadedProblem(reply: FastifyReply, error: HashingBusyError): ProblemBody {
  reply.header('retry-after', String(error.retryAfterSeconds));
  return problem('GH_OVERLOADED', 'Too many sign-ins at once; try again shortly.');
}
