import { type Clock, systemClock } from 'gatehouse-auth';
import type { Config } from 'gatehouse-auth/fastify';
import type { Store } from 'gatehouse-auth/store';
import { serviceHandlers, servicePolicies } from './policies/policies.ts';
import type { Server } from 'node:http';
import type { ServiceOptions } from './app.ts';
import type { ServiceSettings } from './settings.ts';

/** The Gatehouse options of the service, the same on every host. */
export function serviceGatehouseOptions({ config, store, settings, clock }: { config: Config; store: Store; settings: ServiceSettings; clock?: Clock | undefined }) {
  return {
    config,
    // The caller has migrated it (main.ts at start, tests on their fresh databases).
    store,
    migrate: false,
    ...(clock ? { clock } : {}),
    // Sessions are on by default; named here because the contract lists their routes and page
    // section. Passkeys on: browsers need a host name in PUBLIC_URL (or WEBAUTHN_RP_ID); while
    // PUBLIC_URL names an IP address, as the default does, the start warns once.
    features: { sessions: true, passkeys: true, organizations: true },
    policies: servicePolicies(settings.businessHours),
    handlers: serviceHandlers(clock ?? systemClock, settings.timeZone),
  };
}

/** The service's options on a host with a server of its own (Express, Hono): of Gatehouse's, those every host has (`resultHandler` and `openapi` are Fastify's). */
export type HostServiceOptions = Omit<ServiceOptions, 'gatehouse'> & { readonly gatehouse?: Omit<NonNullable<ServiceOptions['gatehouse']>, 'resultHandler' | 'openapi'> };

interface Closable {
  close(): Promise<void>;
}

/**
 * The shutdown of a host with a server of its own: it stops taking connections, closes the
 * sockets (1001), waits for the requests under way, then stops the posts' publisher and Gatehouse.
 */
export async function closeService({ server, graphql, posts, auth }: { server: Server; graphql: Closable; posts: Closable; auth: Closable }): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await graphql.close();
  await closed;
  await posts.close();
  await auth.close();
}
