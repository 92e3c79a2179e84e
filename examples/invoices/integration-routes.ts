/** `/integrations/invoices`: the bookkeeping system's export, called with an API key. */
import type { FastifyInstance } from 'fastify';
import { ClaimTypes } from 'gatehouse-auth';
import type { InvoiceStatus } from './invoice.ts';
import type { InvoiceRouteOptions } from './invoice-routes.ts';

const ExportQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['draft', 'sent', 'paid'] } },
} as const;

export async function integrationRoutes(app: FastifyInstance, { invoices }: InvoiceRouteOptions): Promise<void> {
  app.get<{ Querystring: { status?: InvoiceStatus } }>(
    '/integrations/invoices',
    // Only the ApiKey scheme is asked: a bearer token or a cookie is no credential here.
    { schema: { querystring: ExportQuery }, config: { authorization: { authorize: [{ policy: 'Bookkeeping', schemes: ['ApiKey'] }] } } },
    async (request) => ({ client: request.user.findFirst(ClaimTypes.client)?.value, invoices: await invoices.listByStatus(request.query.status) }),
  );
}
