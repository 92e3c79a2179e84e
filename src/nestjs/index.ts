/**
 * `gatehouse-auth/nestjs`: Gatehouse on NestJS (platform-express and platform-fastify).
 * `GatehouseModule.forRoot(options)` serves Gatehouse's endpoints, registers the global guard and
 * the exception filter of its refusals; `@Authorize(…)`, `@AllowAnonymous()` and `@CurrentUser()`
 * mark controllers and handlers; `AuthorizationService` runs resource checks; `GATEHOUSE` is the
 * token of the use cases (docs/nestjs.md).
 */
export { GATEHOUSE, GatehouseModule, type GatehouseModuleAsyncOptions, type GatehouseModuleOptions } from './gatehouse-module.ts';
export { AllowAnonymous, Authorize, CurrentUser } from './decorators.ts';
export { AuthorizationService } from './authorization-service.ts';
export { ValidBody, ValidParams, ValidQuery } from './request-validation.ts';
export { type NestGraphQL, serveGraphiQL, serveGraphQL } from './nest-graphql.ts';
export { type ApolloDriverOptions, GatehouseGraphQL, type MercuriusDriverOptions, type NestGraphQLOptions } from './gatehouse-graphql.ts';
export { applyServerSettings } from './server-settings.ts';
export type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
export type { ResourcePolicy } from '../endpoints/resource-checks.ts';
export type { GatehouseFeatures, MetricsOptions } from '../hosting/gatehouse-options.ts';
export { loadConfig, type Config } from '../config/config.ts';
export { configFromSettings, type GatehouseSettings, type OidcProviderSettings } from '../config/settings.ts';
export { ConfigError } from '../config/config-error.ts';
export { createLogger, type LoggerOptions } from '../platform/logger.ts';
export { UnsealError } from '../security/crypto/sealer.ts';
export { loggedPath } from '../endpoints/logged-path.ts';
