import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type FieldErrors, GatehouseError } from '../security/errors.ts';
import type { Html } from '../pages/html.ts';
import { validationErrors } from './plugins/problem-errors.ts';
import { isFormPost, sendPage } from './negotiation.ts';

/**
 * One handler for an endpoint that takes JSON and its page's form: JSON callers get problem+json
 * for every refusal (the error handler writes it); a form post gets its page again, with the
 * errors by field and the same status. Routes using it set `attachValidation: true`, so schema
 * errors reach here instead of the error handler.
 */
export async function jsonOrForm(
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<unknown>,
  renderWithErrors: (errors: FieldErrors) => Html | Promise<Html>,
): Promise<unknown> {
  const form = isFormPost(request);
  const invalid = (request as FastifyRequest & { validationError?: FastifyError }).validationError;
  if (invalid) {
    if (!form) throw invalid;
    return sendPage(reply, await renderWithErrors(validationErrors(invalid)), 400);
  }
  try {
    return await run();
  } catch (error) {
    if (!form || !(error instanceof GatehouseError) || error.status >= 500) throw error;
    const errors = (error.extensions as { errors?: FieldErrors }).errors ?? { '': [error.detail ?? 'The request was refused.'] };
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    return sendPage(reply, await renderWithErrors(errors), error.status);
  }
}
