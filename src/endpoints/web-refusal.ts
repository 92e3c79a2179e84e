/**
 * Gatehouse's refusals as Web-standard responses, for hosts that answer with one (Hono, the Web
 * entry): never stored, never sniffed, and a browser's 403 or 404 under the membership paths as
 * the error page, as on every host.
 */
import type { PageRendering } from '../pages/rendering.ts';
import { problem } from '../security/problem-details.ts';
import type { EndpointResponse } from './endpoint.ts';
import { problemResponse } from './problem-response.ts';
import { type RefusedAnswer, refusalPageFor } from './refusal-page.ts';
import { toResponse } from './web-exchange.ts';

/** What a refusal's page is decided on, beside the answer: the request's target and headers. */
export type RefusedRequest = Pick<RefusedAnswer, 'url' | 'headers'>;

export const NOT_FOUND_ANSWER = problemResponse(problem('GH_NOT_FOUND', 'There is no such resource.'));
export const INTERNAL_ERROR_ANSWER = problemResponse(problem('GH_INTERNAL', 'Something went wrong on our side.'));

/** The refusals of one application: the pages of its options, the membership paths under `prefix`. */
export function webRefusals(pages: Pick<PageRendering, 'headers' | 'render' | 'language'>, prefix: string) {
  const pageFor = refusalPageFor(pages, prefix);
  return (answer: EndpointResponse, request: RefusedRequest): Response => {
    const page = pageFor({ status: answer.status, contentType: answer.headers?.['content-type'], url: request.url, headers: request.headers });
    return refusalAsResponse(page === undefined ? answer : { ...answer, headers: page.headers, body: page.body });
  };
}

/** A refusal of Gatehouse's as a response: never stored, never sniffed. */
export function refusalAsResponse(answer: EndpointResponse): Response {
  return toResponse({ ...answer, headers: { ...answer.headers, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
}
