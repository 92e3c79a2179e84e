/**
 * The answers to the errors Gatehouse knows, for hosts whose error path is their own (Express's
 * error handlers): a caller's error, an application's `ProblemError`, a full hashing queue, a
 * stale revocation view, an unreachable store, a refused SMS. Fastify's error handler
 * (http/plugins/problem-errors.ts) answers the same errors alike.
 */
import { STATUS_CODES } from 'node:http';
import { HashingBusyError } from '../identity/hashing-busy.ts';
import { SmsDeliveryError } from '../platform/sms/sms-sender.ts';
import { RevocationsStaleError } from '../revocation/revocations-stale-error.ts';
import { GatehouseError, ProblemError } from '../security/errors.ts';
import { problem, problemOf } from '../security/problem-details.ts';
import { isStoreUnavailable } from '../store/kysely/store-errors.ts';
import { StoreUnavailableError } from '../store/ports.ts';
import type { EndpointResponse } from './endpoint.ts';
import { problemResponse } from './problem-response.ts';

/**
 * `Retry-After` of a 503 for an unreachable store or a stale revocation view: about the store's
 * connect timeout, so a client that waits this long meets a store that is back, or a fresh, prompt refusal.
 */
const STORE_RETRY_AFTER_SECONDS = 5;

/** The answer to a known error, and what the host logs of it (never the caller's input). */
export interface ErrorAnswer {
  readonly response: EndpointResponse;
  readonly report?: { readonly level: 'warn' | 'error'; readonly message: string; readonly err: unknown };
}

/** The answer to `error` when Gatehouse knows it; undefined for an unexpected error, which the host answers (a 500) and logs. */
export function knownErrorAnswer(error: unknown): ErrorAnswer | undefined {
  if (error instanceof GatehouseError) {
    const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
    return { response: problemResponse(problemOf(error), headers) };
  }
  if (error instanceof ProblemError) {
    const { status, code, detail, extensions } = error;
    const body = { ...extensions, type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, ...(detail === undefined ? {} : { detail }), code };
    return { response: problemResponse(body) };
  }
  if (error instanceof HashingBusyError) {
    return { response: problemResponse(problem('GH_OVERLOADED', (m) => m.problemOverloaded), { 'retry-after': String(error.retryAfterSeconds) }) };
  }
  const retryLater = { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) };
  // Not logged per request: the revocation feed told the log once when it went stale.
  if (error instanceof RevocationsStaleError) {
    return { response: problemResponse(problem('GH_REVOCATIONS_STALE', (m) => m.problemRevocationsStale), retryLater) };
  }
  if (isStoreUnavailable(error)) {
    const err = error instanceof StoreUnavailableError ? (error.cause ?? error) : error;
    return {
      response: problemResponse(problem('GH_STORE_UNAVAILABLE', (m) => m.problemStoreUnavailable), retryLater),
      report: { level: 'error', message: 'the store is unavailable', err },
    };
  }
  if (error instanceof SmsDeliveryError) {
    return { response: problemResponse(problem('GH_SMS_FAILED', (m) => m.problemSmsFailed)), report: { level: 'warn', message: 'the SMS gateway did not take a message', err: error } };
  }
  return undefined;
}
