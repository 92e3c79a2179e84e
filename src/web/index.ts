/**
 * `gatehouse-auth/web`: Gatehouse on any runtime that speaks the Fetch API. `gatehouse(options)`
 * builds it for one application and gives Gatehouse's endpoints as one `fetch` handler, the
 * caller of a request (`authenticate`), Web handlers protected by the same authorization
 * metadata as every host's routes (`protect`), Next.js App Router route handlers (`route`), the
 * application's GraphQL schema (`graphql`), and the answers to their errors (docs/web.md).
 */
export { type Caller, gatehouse, type ProtectedHandler, type Protection, type WebGatehouse, type WebHostOptions } from './gatehouse-web.ts';
export type { NextRouteContext, NextRouteHandler, RouteContext } from './next-route.ts';
export { RequestRefusal } from './request-refusal.ts';
export type { WebGraphQL } from './web-graphql.ts';
export type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
export type { GatehouseFeatures, GatehouseInstanceOptions as GatehouseOptions } from '../hosting/gatehouse-options.ts';
export type { ResourcePolicy } from '../endpoints/resource-checks.ts';
export { loadConfig, type Config } from '../config/config.ts';
export { configFromSettings, type GatehouseSettings, type OidcProviderSettings } from '../config/settings.ts';
export { ConfigError } from '../config/config-error.ts';
export { createLogger, type LoggerOptions } from '../platform/logger.ts';
export { UnsealError } from '../security/crypto/sealer.ts';
export { loggedPath } from '../endpoints/logged-path.ts';
