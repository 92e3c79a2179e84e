/**
 * The application's own refusal: a paid invoice cannot change (409).
 *
 * Gatehouse's error handler answers every error as problem+json, but only with statuses of its
 * own: any other 4xx becomes a 400 "The request is not valid." So the routes that throw this
 * answer it in an error handler of their own plugin, and pass every other error on to Gatehouse's.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export class InvoiceConflict extends Error {
  override readonly name = 'InvoiceConflict';
}

export function answerInvoiceConflicts(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (!(error instanceof InvoiceConflict)) throw error;
  return reply
    .code(409)
    .type('application/problem+json')
    .send({ type: 'urn:invoices:problem:conflict', title: 'Conflict', status: 409, detail: error.message, code: 'INVOICE_CONFLICT' });
}
