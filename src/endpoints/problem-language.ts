import type { AcceptLanguage, Catalogues } from '../i18n/catalogue.ts';
import { PROBLEM_JSON, type ProblemBody, problemIn } from '../security/problem-details.ts';
import type { EndpointResponse } from './endpoint.ts';

/**
 * A problem answer in its reader's language (the application's fixed one, else `Accept-Language`,
 * else the default), which `Content-Language` names; any other answer as it is. Every host writes
 * its problems through this, or through `problemInLanguage` when it serializes them itself.
 */
export function inReadersLanguage(answer: EndpointResponse, catalogues: Catalogues, acceptLanguage: AcceptLanguage): EndpointResponse {
  if (answer.headers?.['content-type'] !== PROBLEM_JSON || typeof answer.body !== 'object' || answer.body === null) return answer;
  const { body, language } = problemInLanguage(answer.body as ProblemBody, catalogues, acceptLanguage);
  return { ...answer, headers: { ...answer.headers, 'content-language': language }, body };
}

/** `body` in its reader's language, and that language's tag. */
export function problemInLanguage(body: ProblemBody, catalogues: Catalogues, acceptLanguage: AcceptLanguage): { readonly body: ProblemBody; readonly language: string } {
  const language = catalogues.choose(acceptLanguage);
  return { body: problemIn(body, catalogues.messages(language)), language };
}
