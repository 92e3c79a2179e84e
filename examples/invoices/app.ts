/**
 * The invoices API: Gatehouse's membership and tokens under `/identity`, the application's own
 * `invoices` table beside Gatehouse's tables, its policies and resource handler, a group of routes
 * protected by a policy, an open health check, and an integration called with an API key.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { type Config, type createLogger, gatehouse, routeGroup, serverOptions } from 'gatehouse-auth/fastify';
import { createStore } from 'gatehouse-auth/store';
import { integrationRoutes } from './integration-routes.ts';
import { InvoiceRepository, invoiceMigrations, type InvoiceSchema } from './invoice-database.ts';
import { invoiceRoutes } from './invoice-routes.ts';
import { invoiceHandlers, invoicePolicies } from './policies.ts';

/** Where Gatehouse's routes live: `/identity/auth/token`, `/identity/account/register`, … */
export const IDENTITY_PREFIX = '/identity';

export interface InvoicesAppOptions {
  /** From `loadConfig()` (the environment) or `configFromSettings({ … })` (code). */
  readonly config: Config;
  readonly logger?: ReturnType<typeof createLogger>;
}

/** The application, its tables migrated, ready to listen (or to `inject` in tests). */
export async function buildInvoicesApp({ config, logger }: InvoicesAppOptions): Promise<FastifyInstance> {
  // Gatehouse's tables first, then the application's own, in the same database.
  const store = await createStore(config.databaseUrl, { migrations: invoiceMigrations });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }

  const app = Fastify(serverOptions(config, logger));
  // Closed after every route has finished (onClose runs once the server has stopped).
  app.addHook('onClose', () => store.close());
  await app.register(gatehouse, {
    config,
    store,
    migrate: false,
    prefix: IDENTITY_PREFIX,
    policies: invoicePolicies(),
    handlers: invoiceHandlers(),
  });

  const invoices = new InvoiceRepository(store.database.kysely<InvoiceSchema>());
  await app.register(routeGroup({ authorize: [{ policy: 'Customers' }] }, invoiceRoutes), { invoices });
  await app.register(integrationRoutes, { invoices });
  return app;
}
