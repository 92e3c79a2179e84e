/**
 * `/invoices`: registered as a group under the `Customers` policy (see app.ts), so every route
 * here needs a signed-in person unless it says otherwise; each invoice is then checked against
 * its owner with `request.authorize(invoice, …)`.
 */
import type { FastifyInstance } from 'fastify';
import { GatehouseError, ProblemError } from 'gatehouse-auth';
import type { InvoiceStatus } from './invoice.ts';
import type { InvoiceChanges, InvoiceRepository } from './invoice-database.ts';

export interface InvoiceRouteOptions {
  readonly invoices: InvoiceRepository;
}

const STATUSES: readonly InvoiceStatus[] = ['draft', 'sent', 'paid'];

const InvoiceParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' } },
} as const;

const NewInvoiceBody = {
  type: 'object',
  required: ['customer', 'amountCents'],
  additionalProperties: false,
  properties: {
    customer: { type: 'string', minLength: 1, maxLength: 200 },
    amountCents: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
  },
} as const;

const InvoiceChangesBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { ...NewInvoiceBody.properties, status: { type: 'string', enum: STATUSES } },
} as const;

export async function invoiceRoutes(app: FastifyInstance, { invoices }: InvoiceRouteOptions): Promise<void> {
  /** The caller's Gatehouse user id: the `Customers` policy guarantees a user (`sub`). */
  const callerId = (subject: string | null) => Number(subject);

  // Open to anyone: the endpoint's own metadata beats its group's policy.
  app.get('/invoices/health', { config: { authorization: { allowAnonymous: true } } }, async () => ({ status: 'ok' }));

  app.get('/invoices', async (request) => ({ invoices: await invoices.listOwnedBy(callerId(request.user.subject)) }));

  app.post<{ Body: { customer: string; amountCents: number } }>('/invoices', { schema: { body: NewInvoiceBody } }, async (request, reply) => {
    const invoice = await invoices.create({ ownerId: callerId(request.user.subject), ...request.body }, new Date(app.gatehouse.clock.now()));
    return reply.code(201).header('location', `/invoices/${invoice.id}`).send(invoice);
  });

  app.get<{ Params: { id: string } }>('/invoices/:id', { schema: { params: InvoiceParams } }, async (request) => {
    const invoice = await invoices.find(Number(request.params.id));
    if (invoice === undefined) throw GatehouseError.notFound('There is no such invoice.');
    await request.authorize(invoice, 'ReadInvoice');
    return invoice;
  });

  app.patch<{ Params: { id: string }; Body: InvoiceChanges }>(
    '/invoices/:id',
    { schema: { params: InvoiceParams, body: InvoiceChangesBody } },
    async (request) => {
      const invoice = await invoices.find(Number(request.params.id));
      if (invoice === undefined) throw GatehouseError.notFound('There is no such invoice.');
      // Authorized first: only the owner learns that the invoice is paid.
      await request.authorize(invoice, 'UpdateInvoice');
      const updated = await invoices.updateUnpaid(invoice.id, request.body);
      if (updated === undefined) throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: invoice.id });
      return updated;
    },
  );
}
