import type { FastifyInstance, FastifyReply } from 'fastify';
import { problemInLanguage } from '../endpoints/problem-language.ts';
import { BUILT_IN_LANGUAGES, type Catalogues } from '../i18n/catalogue.ts';
import { PROBLEM_JSON, type ProblemBody } from '../security/problem-details.ts';

// The bodies are built in the core; routes and plugins import them from here with `sendProblem`.
export { PROBLEM_JSON, problem, problemType, type ProblemBody } from '../security/problem-details.ts';

/** `body` as problem+json, in the language of the request it answers (`Content-Language` names it). */
export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type(PROBLEM_JSON).send(problemText(reply, body));
}

/** `body` serialized in the language of the request `reply` answers, with `Content-Language` set. */
export function problemText(reply: FastifyReply, body: ProblemBody): string {
  const { body: worded, language } = problemInLanguage(body, languagesOf(reply.server), reply.request.headers['accept-language']);
  reply.header('content-language', language);
  return JSON.stringify(worded);
}

/** The service's languages; an application of Fastify's own without Gatehouse's pages (a plugin on its own) has the built-in ones. */
export function languagesOf(app: FastifyInstance): Catalogues {
  return app.pages?.catalogues ?? BUILT_IN_LANGUAGES;
}
