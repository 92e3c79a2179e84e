/**
 * The invoices API of `examples/invoices` on Hono 4: the same policies, resource handler and table,
 * served by Hono routes. Gatehouse's membership and tokens live under `/identity`; the invoices
 * sub-application is a group under the `Customers` policy; its health check opens itself; bodies
 * and the export's query are TypeBox schemas checked by `auth.validate`; the bookkeeping export
 * asks for an API key.
 */
import type { Server } from 'node:http';
import { Type } from '@sinclair/typebox';
import { Hono } from 'hono';
import { ClaimTypes, GatehouseError, ProblemError } from 'gatehouse-auth';
import { type Config, type createLogger, type GatehouseEnv, gatehouse, type HonoGatehouse } from 'gatehouse-auth/hono';
import { createStore } from 'gatehouse-auth/store';
import { InvoiceRepository, invoiceMigrations, type InvoiceSchema } from '../invoices/invoice-database.ts';
import { invoiceHandlers, invoicePolicies } from '../invoices/policies.ts';

/** Where Gatehouse's endpoints live: `/identity/auth/token`, `/identity/account/register`, … */
export const IDENTITY_PREFIX = '/identity';

const Status = Type.Union([Type.Literal('draft'), Type.Literal('sent'), Type.Literal('paid')]);
const Customer = Type.String({ minLength: 1, maxLength: 200 });
const AmountCents = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });
const NewInvoice = Type.Object({ customer: Customer, amountCents: AmountCents }, { additionalProperties: false });
const InvoiceChanges = Type.Object(
  { customer: Type.Optional(Customer), amountCents: Type.Optional(AmountCents), status: Type.Optional(Status) },
  { additionalProperties: false, minProperties: 1 },
);
const InvoiceId = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,9}$' }) });
const ExportQuery = Type.Object({ status: Type.Optional(Status) });

export interface InvoicesHonoApp {
  readonly app: Hono<GatehouseEnv>;
  /** The Node server for the app, with Gatehouse's settings; not listening yet. */
  readonly server: Server;
  readonly auth: HonoGatehouse;
  /** Closes Gatehouse and the store, once the server has stopped. */
  close(): Promise<void>;
}

/** The application, its tables migrated, ready to listen. */
export async function buildInvoicesHonoApp({ config, logger }: { config: Config; logger?: ReturnType<typeof createLogger> }): Promise<InvoicesHonoApp> {
  // Gatehouse's tables first, then the application's own, in the same database.
  const store = await createStore(config.databaseUrl, { migrations: invoiceMigrations });
  let auth: HonoGatehouse;
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
  const app = new Hono<GatehouseEnv>();
  app.use(auth.endpoints);
  app.use(auth.middleware);
  app.route('/invoices', invoiceRoutes(auth, invoices));
  app.get('/integrations/invoices', auth.authorize({ policy: 'Bookkeeping', schemes: ['ApiKey'] }), auth.validate({ query: ExportQuery }), async (c) => {
    const { status } = c.req.valid('query');
    return c.json({ client: c.var.user.findFirst(ClaimTypes.client)?.value, invoices: await invoices.listByStatus(status) });
  });
  app.notFound(auth.notFound);
  app.onError(auth.onError);
  return {
    app,
    server: auth.createServer(app),
    auth,
    close: async () => {
      await auth.close();
      await store.close();
    },
  };
}

/** `/invoices`: every route needs a signed-in person unless it says otherwise; each invoice is checked against its owner. */
function invoiceRoutes(auth: HonoGatehouse, invoices: InvoiceRepository): Hono<GatehouseEnv> {
  const routes = new Hono<GatehouseEnv>();
  routes.use(auth.authorize({ policy: 'Customers' }));
  // The `Customers` policy guarantees a user (`sub`).
  const callerId = (user: GatehouseEnv['Variables']['user']) => Number(user.subject);
  const found = async (id: string) => {
    const invoice = await invoices.find(Number(id));
    if (invoice === undefined) throw GatehouseError.notFound('There is no such invoice.');
    return invoice;
  };

  routes.get('/health', auth.allowAnonymous(), (c) => c.json({ status: 'ok' }));
  routes.get('/', async (c) => c.json({ invoices: await invoices.listOwnedBy(callerId(c.var.user)) }));
  routes.post('/', auth.validate({ json: NewInvoice }), async (c) => {
    const invoice = await invoices.create({ ownerId: callerId(c.var.user), ...c.req.valid('json') }, new Date(auth.gatehouse.clock.now()));
    c.header('location', `/invoices/${invoice.id}`);
    return c.json(invoice, 201);
  });
  routes.get('/:id', auth.validate({ param: InvoiceId }), async (c) => {
    const invoice = await found(c.req.valid('param').id);
    await c.var.authorize(invoice, 'ReadInvoice');
    return c.json(invoice);
  });
  routes.patch('/:id', auth.validate({ param: InvoiceId, json: InvoiceChanges }), async (c) => {
    const invoice = await found(c.req.valid('param').id);
    // Authorized first: only the owner learns that the invoice is paid.
    await c.var.authorize(invoice, 'UpdateInvoice');
    const updated = await invoices.updateUnpaid(invoice.id, c.req.valid('json'));
    if (updated === undefined) throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: invoice.id });
    return c.json(updated);
  });
  return routes;
}
