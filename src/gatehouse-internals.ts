import type { Gatehouse } from './gatehouse.ts';
import type { Services } from './services.ts';

/**
 * Gatehouse's own services behind an `app.gatehouse`, for its GraphQL plugin and its tests. Not
 * exported by any entry point: applications change users, keys and sessions only through the
 * use cases on `app.gatehouse`, which write the audit trail and announce revocations.
 */
const servicesBehind = new WeakMap<Gatehouse, Services>();

/** Remembers the services behind `gatehouse` (the plugin, once it has wired them). */
export function attachServices(gatehouse: Gatehouse, services: Services): void {
  servicesBehind.set(gatehouse, services);
}

/** The services behind `gatehouse`; throws when it was not made by Gatehouse's plugin. */
export function gatehouseServices(gatehouse: Gatehouse): Services {
  const services = servicesBehind.get(gatehouse);
  if (!services) throw new Error('This Gatehouse was not made by its plugin.');
  return services;
}
