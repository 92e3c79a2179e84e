/**
 * `gatehouse-auth/fastify`: Gatehouse as a Fastify application's authentication and
 * authorization, with membership, tokens and pages.
 */
export { loadConfig, type Config } from '../config/config.ts';
export { ConfigError } from '../config/config-error.ts';
export { createServices, type Services } from '../services.ts';
export { buildApp, type AppOptions } from './app.ts';
export { routeGroup } from './pipeline.ts';
export type { AuthorizationResultHandler } from './authorization-result-handler.ts';
export { createLogger } from '../platform/logger.ts';
export { UnsealError } from '../security/crypto/sealer.ts';
// The pages an application owns: options, typed models for its own renderers, and the escaping helpers.
export { type PageOptions, type PageModels, type PageName, type PageRenderers, DEFAULT_RENDERERS } from './pages/rendering.ts';
export type { LayoutRenderer, PageContent, PageKit, PageRenderer } from './pages/page-kit.ts';
export { Html, html, escapeHtml, type LayoutModel } from './pages/html.ts';
export type { AccountPaths } from './pages/paths.ts';
