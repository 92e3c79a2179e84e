/**
 * `gatehouse-auth/fastify`: Gatehouse as a Fastify application's authentication and
 * authorization, with membership, tokens and pages.
 */
export { loadConfig, type Config } from '../config/config.ts';
export { ConfigError } from '../config/config-error.ts';
export { createServices, type Services } from '../services.ts';
export { buildApp, type AppOptions } from './app.ts';
export type { OpenApiOptions } from './plugins/openapi.ts';
export { routeGroup } from './pipeline.ts';
export type { AuthorizationResultHandler } from './authorization-result-handler.ts';
export { createLogger } from '../platform/logger.ts';
export { UnsealError } from '../security/crypto/sealer.ts';
