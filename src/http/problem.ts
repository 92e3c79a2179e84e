import type { FastifyReply } from 'fastify';
import { PROBLEM_JSON, type ProblemBody } from '../security/problem-details.ts';

// The bodies are built in the core; routes and plugins import them from here with `sendProblem`.
export { PROBLEM_JSON, problem, problemType, type ProblemBody } from '../security/problem-details.ts';

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type(PROBLEM_JSON).send(JSON.stringify(body));
}
