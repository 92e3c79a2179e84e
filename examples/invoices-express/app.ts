/**
 * The invoices API of `examples/invoices` on Express 5: the same policies, resource handler and
 * table, served by Express routes. Gatehouse's membership and tokens live under `/identity`; the
 * invoices router is a group under the `Customers` policy; its health check opens itself; the
 * bookkeeping export asks for an API key.
 */
import express, { type Express, type Request, type Router } from 'express';
import { ClaimTypes, GatehouseError, ProblemError } from 'gatehouse-auth';
import { type Config, type createLogger, type ExpressGatehouse, gatehouse } from 'gatehouse-auth/express';
import { createStore } from 'gatehouse-auth/store';
import { InvoiceRepository, type InvoiceChanges, invoiceMigrations, type InvoiceSchema } from '../invoices/invoice-database.ts';
import type { InvoiceStatus } from '../invoices/invoice.ts';
import { invoiceHandlers, invoicePolicies } from '../invoices/policies.ts';

/** Where Gatehouse's endpoints live: `/identity/auth/token`, `/identity/account/register`, … */
export const IDENTITY_PREFIX = '/identity';

const STATUSES: readonly InvoiceStatus[] = ['draft', 'sent', 'paid'];

export interface InvoicesExpressApp {
  readonly app: Express;
  readonly auth: ExpressGatehouse;
  /** Closes Gatehouse and the store, once the server has stopped. */
  close(): Promise<void>;
}

/** The application, its tables migrated, ready to listen. */
export async function buildInvoicesExpressApp({ config, logger }: { config: Config; logger?: ReturnType<typeof createLogger> }): Promise<InvoicesExpressApp> {
  // Gatehouse's tables first, then the application's own, in the same database.
  const store = await createStore(config.databaseUrl, { migrations: invoiceMigrations });
  let auth: ExpressGatehouse;
  try {
    await store.migrate();
    auth = await gatehouse(
      { config, store, migrate: false, prefix: IDENTITY_PREFIX, policies: invoicePolicies(), handlers: invoiceHandlers() },
      logger ? { logger } : {},
    );
  } catch (error) {
    await store.close();
    throw error;
  }
  const invoices = new InvoiceRepository(store.database.kysely<InvoiceSchema>());
  const app = express();
  app.use(auth.endpoints);
  app.use(express.json());
  app.use(auth.middleware);
  app.use('/invoices', invoiceRouter(auth, invoices));
  app.get('/integrations/invoices', auth.authorize({ policy: 'Bookkeeping', schemes: ['ApiKey'] }), async (request, response) => {
    const status = request.query.status;
    if (status !== undefined && !STATUSES.includes(status as InvoiceStatus)) throw invalid('status', 'draft, sent or paid');
    response.json({ client: request.user.findFirst(ClaimTypes.client)?.value, invoices: await invoices.listByStatus(status as InvoiceStatus | undefined) });
  });
  app.use(auth.errors);
  return {
    app,
    auth,
    close: async () => {
      await auth.close();
      await store.close();
    },
  };
}

/** `/invoices`: every route needs a signed-in person unless it says otherwise; each invoice is checked against its owner. */
function invoiceRouter(auth: ExpressGatehouse, invoices: InvoiceRepository): Router {
  const router = express.Router();
  router.use(auth.authorize({ policy: 'Customers' }));
  // The `Customers` policy guarantees a user (`sub`).
  const callerId = (request: Request) => Number(request.user.subject);

  router.get('/health', auth.allowAnonymous(), (_request, response) => {
    response.json({ status: 'ok' });
  });
  router.get('/', async (request, response) => {
    response.json({ invoices: await invoices.listOwnedBy(callerId(request)) });
  });
  router.post('/', async (request, response) => {
    const { customer, amountCents } = newInvoice(request.body);
    const invoice = await invoices.create({ ownerId: callerId(request), customer, amountCents }, new Date(auth.gatehouse.clock.now()));
    response.status(201).location(`/invoices/${invoice.id}`).json(invoice);
  });
  router.get('/:id', async (request, response) => {
    const invoice = await found(invoices, request.params.id);
    await request.authorize(invoice, 'ReadInvoice');
    response.json(invoice);
  });
  router.patch('/:id', async (request, response) => {
    const invoice = await found(invoices, request.params.id);
    // Authorized first: only the owner learns that the invoice is paid.
    await request.authorize(invoice, 'UpdateInvoice');
    const updated = await invoices.updateUnpaid(invoice.id, invoiceChanges(request.body));
    if (updated === undefined) throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: invoice.id });
    response.json(updated);
  });
  return router;
}

async function found(invoices: InvoiceRepository, id: string | undefined) {
  const invoice = /^[1-9][0-9]{0,9}$/.test(id ?? '') ? await invoices.find(Number(id)) : undefined;
  if (invoice === undefined) throw GatehouseError.notFound('There is no such invoice.');
  return invoice;
}

function newInvoice(body: unknown): { customer: string; amountCents: number } {
  const { customer, amountCents, ...rest } = (body ?? {}) as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw invalid(Object.keys(rest)[0]!, 'not a field of an invoice');
  if (!isCustomer(customer)) throw invalid('customer', '1 to 200 characters');
  if (!isAmount(amountCents)) throw invalid('amountCents', 'an integer from 0 to 1,000,000,000');
  return { customer, amountCents };
}

function invoiceChanges(body: unknown): InvoiceChanges {
  const { customer, amountCents, status, ...rest } = (body ?? {}) as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw invalid(Object.keys(rest)[0]!, 'not a field of an invoice');
  if (customer !== undefined && !isCustomer(customer)) throw invalid('customer', '1 to 200 characters');
  if (amountCents !== undefined && !isAmount(amountCents)) throw invalid('amountCents', 'an integer from 0 to 1,000,000,000');
  if (status !== undefined && !STATUSES.includes(status as InvoiceStatus)) throw invalid('status', 'draft, sent or paid');
  const changes = { ...(customer === undefined ? {} : { customer }), ...(amountCents === undefined ? {} : { amountCents }), ...(status === undefined ? {} : { status }) };
  if (Object.keys(changes).length === 0) throw invalid('body', 'at least one field');
  return changes as InvoiceChanges;
}

const isCustomer = (value: unknown): value is string => typeof value === 'string' && value.length >= 1 && value.length <= 200;
const isAmount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 1_000_000_000;

/** A 400 problem naming the field, as Gatehouse's own validation answers. */
function invalid(field: string, expected: string): GatehouseError {
  return GatehouseError.validation({ [field]: [`Expected ${expected}.`] });
}
