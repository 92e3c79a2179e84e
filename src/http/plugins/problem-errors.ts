import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES } from 'node:http';
import { knownErrorAnswer } from '../../endpoints/error-answers.ts';
import type { Phrase, WordedFieldErrors } from '../../i18n/phrase.ts';
import { problem, type ProblemBody, sendProblem } from '../problem.ts';
import { type AuthorizationResultHandler, problemResultHandler, renderRefusal } from '../authorization-result-handler.ts';
import { AuthorizationRefusal } from '../resource-authorization.ts';
import { fieldErrors, type ValidationIssue } from '../../endpoints/body-validation.ts';

/** Fastify's own errors that are the caller's fault, by code. */
const FRAMEWORK_ERRORS: Record<string, (error: FastifyError) => ProblemBody> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => problem('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotAccepted),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => problem('GH_VALIDATION_FAILED', (m) => m.problemContentLengthMismatch, { errors: { body: [(m) => m.problemContentLengthMismatch] } }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => problem('GH_PAYLOAD_TOO_LARGE', (m) => m.problemBodyTooLarge),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => problem('GH_VALIDATION_FAILED', (m) => m.problemJsonBodyEmpty, { errors: { body: [(m) => m.problemJsonBodyEmpty] } }),
  FST_ERR_CTP_INVALID_JSON_BODY: () => notJson(),
  FST_ERR_CTP_INVALID_CONTENT_TYPE: () => problem('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotValid),
  FST_ERR_BAD_URL: () => problem('GH_VALIDATION_FAILED', (m) => m.problemUrlNotValid, { errors: { url: [(m) => m.problemUrlBadEscape] } }),
};

const NOT_VALID: Phrase = (m) => m.problemRequestNotValid;

function notJson(): ProblemBody {
  return problem('GH_VALIDATION_FAILED', (m) => m.problemBodyNotJson, { errors: { body: [(m) => m.problemBodyNotJson] } });
}

/**
 * Any other refusal with a 4xx status (Fastify's, its plugins', Node's stream errors such as a
 * body the client stopped sending, the application's own) as Gatehouse's problem of that status;
 * statuses Gatehouse has no problem of keep their status (`statusProblem`).
 */
const BY_STATUS: Record<number, () => ProblemBody> = {
  404: () => problem('GH_NOT_FOUND', (m) => m.problemNoSuchResource),
  405: () => problem('GH_METHOD_NOT_ALLOWED'),
  408: () => problem('GH_REQUEST_TIMEOUT', (m) => m.problemRequestTimeout),
  413: () => problem('GH_PAYLOAD_TOO_LARGE', (m) => m.problemBodyTooLarge),
  415: () => problem('GH_UNSUPPORTED_MEDIA_TYPE'),
  431: () => problem('GH_HEADERS_TOO_LARGE', (m) => m.problemHeadersTooLarge),
};

/** The problem for an error of Fastify, a plugin or a body stream that is the caller's fault, else undefined. */
export function frameworkProblem(error: FastifyError): ProblemBody | undefined {
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return known(error);
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON|prototype|constructor/i.test(error.message))) {
    return notJson();
  }
  const status = clientErrorStatus(error);
  if (status === undefined) return undefined;
  if (status === 400) return problem('GH_VALIDATION_FAILED', NOT_VALID, { errors: { request: [NOT_VALID] } });
  return BY_STATUS[status]?.() ?? statusProblem(status, error);
}

/** The 4xx status of an error, read as Fastify reads it (`statusCode`, else `status`); else undefined. */
function clientErrorStatus(error: FastifyError): number | undefined {
  const status = error.statusCode ?? (error as { status?: unknown }).status;
  return Number.isInteger(status) && (status as number) >= 400 && (status as number) < 500 ? (status as number) : undefined;
}

/**
 * A 4xx of the application or a plugin (a 409, a 422 of `@fastify/sensible`'s `httpErrors`) with
 * its own status and the status's title. Its message is the caller's only when the error says so
 * (`expose`, which `http-errors` sets for 4xx); otherwise it may be written for the log. A code
 * such as Fastify's `FST_ERR_*` is kept.
 */
function statusProblem(status: number, error: FastifyError & { expose?: unknown }): ProblemBody {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    ...(error.expose === true && error.message !== '' ? { detail: error.message } : {}),
    ...(typeof error.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(error.code) ? { code: error.code } : {}),
  };
}

export interface ProblemErrorsOptions {
  /** Answers a refused resource check (`request.authorize`) as it answers a route's policy. */
  readonly resultHandler?: AuthorizationResultHandler;
}

/** Every error becomes application/problem+json; unexpected ones are logged and answered generically. */
async function problemErrors(app: FastifyInstance, options: ProblemErrorsOptions): Promise<void> {
  const resultHandler = options.resultHandler ?? problemResultHandler;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AuthorizationRefusal) return renderRefusal(resultHandler, request, reply, error.outcome);
    // Gatehouse's errors and the application's ProblemError, answered alike on every host.
    const known = knownErrorAnswer(error);
    if (known !== undefined) {
      const { report } = known;
      if (report?.level === 'error') request.log.error({ err: report.err }, report.message);
      if (report?.level === 'warn') request.log.warn({ err: report.err }, report.message);
      const { 'content-type': _type, ...headers } = known.response.headers ?? {};
      return sendProblem(reply.headers(headers), known.response.body as ProblemBody);
    }
    if (error.validation) {
      const errors = validationErrors(error);
      return sendProblem(reply, problem('GH_VALIDATION_FAILED', (m) => m.problemRequestNotValid, { errors }));
    }
    const refusal = frameworkProblem(error);
    if (refusal) return sendProblem(reply, refusal);
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(reply, problem('GH_INTERNAL', (m) => m.problemInternalError));
  });

  app.setNotFoundHandler((_request, reply) => sendProblem(reply, problem('GH_NOT_FOUND', (m) => m.problemNoSuchResource)));
}

/** Ajv's errors, keyed by the field they concern (`body` for the document as a whole). */
export function validationErrors(error: FastifyError): WordedFieldErrors {
  return fieldErrors((error.validation ?? []) as ValidationIssue[], error.validationContext ?? 'body');
}

export const problemErrorsPlugin = fp(problemErrors, { name: 'gatehouse-problem-errors', fastify: '5.x' });
