/**
 * Gatehouse's refusals as Web-standard responses, for hosts that answer with one (Hono, the Web
 * entry): never stored, never sniffed, and a browser's 403 or 404 under the membership paths as
 * the error page, and problems in the reader's language, as on every host.
 */
import { problem } from '../security/problem-details.ts';
import type { EndpointResponse } from './endpoint.ts';
import { problemResponse } from './problem-response.ts';
import { type RefusalPages, type RefusedAnswer, refusalForReader } from './refusal-page.ts';
import { toResponse } from './web-exchange.ts';

/** What a refusal's page is decided on, beside the answer: the request's target and headers. */
export type RefusedRequest = Pick<RefusedAnswer, 'url' | 'headers'>;

export const NOT_FOUND_ANSWER = problemResponse(problem('GH_NOT_FOUND', (m) => m.problemNoSuchResource));
export const INTERNAL_ERROR_ANSWER = problemResponse(problem('GH_INTERNAL', (m) => m.problemInternalError));

/** The refusals of one application: the pages of its options, the membership paths under `prefix`. */
export function webRefusals(pages: RefusalPages, prefix: string) {
  const forReader = refusalForReader(pages, prefix);
  return (answer: EndpointResponse, request: RefusedRequest): Response => refusalAsResponse(forReader(answer, request));
}

/** A refusal of Gatehouse's as a response: never stored, never sniffed. */
export function refusalAsResponse(answer: EndpointResponse): Response {
  return toResponse({ ...answer, headers: { ...answer.headers, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
}
