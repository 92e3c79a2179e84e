/**
 * `gatehouse-auth/express`: Gatehouse on Express. `gatehouse(options)` builds it for one
 * application and gives the middleware, Gatehouse's endpoints, `authorize(…)` and
 * `allowAnonymous()` for routes and routers, and the error handler of refused resource checks
 * (docs/express.md).
 */
export { gatehouse, type ExpressGatehouse } from './gatehouse-express.ts';
export type { GatehouseFeatures, GatehouseInstanceOptions as GatehouseOptions, MetricsOptions } from '../hosting/gatehouse-options.ts';
export type { ResourcePolicy } from '../endpoints/resource-checks.ts';
