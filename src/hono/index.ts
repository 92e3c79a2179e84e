/**
 * `gatehouse-auth/hono`: Gatehouse on Hono. `gatehouse(options)` builds it for one application and
 * gives Gatehouse's endpoints as one handler, the middleware that sets `c.var.user`,
 * `authorize(…)` and `allowAnonymous()` for routes and groups, the error and not-found handlers,
 * GraphQL over HTTP and WebSocket, and a Node server with Gatehouse's settings (docs/hono.md).
 */
export { gatehouse, type GatehouseEnv, type GatehouseVariables, type HonoApplication, type HonoGatehouse, type HonoHostOptions } from './gatehouse-hono.ts';
export type { RequestSchemas, ValidatedInput } from './request-validation.ts';
export type { HonoGraphQL } from './hono-graphql.ts';
export type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
export type { GatehouseFeatures, GatehouseInstanceOptions as GatehouseOptions, MetricsOptions } from '../hosting/gatehouse-options.ts';
export type { ResourcePolicy } from '../endpoints/resource-checks.ts';
export { loadConfig, type Config } from '../config/config.ts';
export { configFromSettings, type GatehouseSettings, type OidcProviderSettings } from '../config/settings.ts';
export { ConfigError } from '../config/config-error.ts';
export { createLogger, type LoggerOptions } from '../platform/logger.ts';
export { UnsealError } from '../security/crypto/sealer.ts';
export { loggedPath } from '../endpoints/logged-path.ts';
