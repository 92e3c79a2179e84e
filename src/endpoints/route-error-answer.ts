/**
 * The answer to an error an application's route handler throws, on hosts whose error path is
 * Gatehouse's (Hono's `onError`, the Web entry's protected handlers): a refused resource check as
 * the route's policy would refuse it (401, the login page, 403), the errors Gatehouse knows and
 * the application's `ProblemError`s as problem+json (error-answers.ts), and anything else as a
 * 500 that tells nothing, logged.
 */
import type { EndpointLog, EndpointResponse } from './endpoint.ts';
import { knownErrorAnswer } from './error-answers.ts';
import { type LoginPage, refusalResponse } from './refusal-response.ts';
import { AuthorizationRefusal } from './resource-checks.ts';
import { INTERNAL_ERROR_ANSWER, type RefusedRequest } from './web-refusal.ts';

export interface RouteErrorOptions {
  readonly log: EndpointLog;
  readonly loginPage: LoginPage;
}

/** The answer to `error`; `request` is read only for a refused resource check. */
export function routeErrorAnswer(error: unknown, request: () => RefusedRequest, { log, loginPage }: RouteErrorOptions): EndpointResponse {
  if (error instanceof AuthorizationRefusal) return refusalResponse(error.outcome, request(), loginPage);
  const known = knownErrorAnswer(error);
  if (known?.report !== undefined) log[known.report.level]({ err: known.report.err }, known.report.message);
  if (known !== undefined) return known.response;
  log.error({ err: error }, 'request failed');
  return INTERNAL_ERROR_ANSWER;
}
