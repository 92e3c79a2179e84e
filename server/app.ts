/**
 * The reference service: Gatehouse's plugin with this service's policies and handlers, and the
 * example endpoints of the contract (documents, organizations, content, integrations, `/me`,
 * `/health`) and the posts schema on `/graphql`, built only on the library's public entry points, as any application would be.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Clock } from 'gatehouse-auth';
import { type Config, type GatehouseOptions, gatehouse, routeGroup, serverOptions } from 'gatehouse-auth/fastify';
import type { Store } from 'gatehouse-auth/store';
import { graphiql } from 'gatehouse-auth/graphql';
import type { Logger } from 'pino';
import { serviceGatehouseOptions } from './service-gatehouse.ts';
import type { ServiceSettings } from './settings.ts';
import { contentRoutes } from './routes/content.ts';
import { documentRoutes } from './routes/documents.ts';
import { healthRoutes } from './routes/health.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { meRoutes } from './routes/me.ts';
import { organizationRoutes } from './routes/orgs.ts';
import { postsGraphQL } from './posts/posts-graphql.ts';
import { serviceData } from './storage/service-data.ts';

export interface ServiceOptions {
  readonly config: Config;
  /** Migrated with the service's own tables: `createStore(url, { migrations: serviceMigrations })`, then `migrate()`. */
  readonly store: Store;
  readonly logger: Logger;
  /** The service's own settings (`BUSINESS_HOURS`, `TZ`). */
  readonly settings: ServiceSettings;
  readonly clock?: Clock;
  /** Options of the plugin the service does not set itself (tests replace the result handler or hear of lockouts; `main.ts` serves the OpenAPI document in development). */
  readonly gatehouse?: Pick<GatehouseOptions, 'resultHandler' | 'onLockout' | 'prefix' | 'openapi' | 'pages'>;
}

/** The service's Fastify app, ready to listen. */
export async function buildService({ config, store, logger, settings, clock, gatehouse: extra }: ServiceOptions): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(config, logger));
  await app.register(gatehouse, {
    ...serviceGatehouseOptions({ config, store, settings, clock }),
    ...extra,
  });
  await app.register(healthRoutes);
  await app.register(meRoutes);
  await app.register(contentRoutes);
  const data = serviceData(store.database);
  await app.register(routeGroup({ authorize: [{ policy: 'User' }] }, documentRoutes), { documents: data.documents });
  await app.register(organizationRoutes, { organizationSettings: data.organizationSettings });
  await app.register(integrationRoutes);
  await app.register(postsGraphQL, { posts: data.posts, outbox: data.outbox, clock: app.gatehouse.clock, logger });
  // GraphiQL in development only: production has no such route (404).
  if (!config.production) await app.register(graphiql);
  return app;
}
