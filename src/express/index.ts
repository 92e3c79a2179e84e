/**
 * `gatehouse-auth/express`: Gatehouse on Express. `gatehouse(options)` builds it for one
 * application and gives the middleware, Gatehouse's endpoints, `authorize(…)` and
 * `allowAnonymous()` for routes and routers, the error handler of refused resource checks, and
 * GraphQL over HTTP and WebSocket (docs/express.md); and the settings and logger it starts with.
 */
export { gatehouse, type ExpressGatehouse } from './gatehouse-express.ts';
export type { RequestSchemas } from './request-validation.ts';
export type { ExpressGraphQL } from './express-graphql.ts';
export type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
export type { GatehouseFeatures, GatehouseInstanceOptions as GatehouseOptions, MetricsOptions } from '../hosting/gatehouse-options.ts';
export type { ResourcePolicy } from '../endpoints/resource-checks.ts';
export { loadConfig, type Config } from '../config/config.ts';
export { configFromSettings, type GatehouseSettings, type OidcProviderSettings } from '../config/settings.ts';
export { ConfigError } from '../config/config-error.ts';
export { createLogger, type LoggerOptions } from '../platform/logger.ts';
export { UnsealError } from '../security/crypto/sealer.ts';
export { loggedPath } from '../endpoints/logged-path.ts';
