/**
 * `gatehouse-auth/fastify`: Gatehouse as a Fastify application's authentication and
 * authorization, with membership, tokens and pages.
 */
export {
  gatehouse,
  serverOptions,
  type GatehouseFeatures,
  type GatehouseOptions,
  type MetricsOptions,
} from './app.ts';
export type { Gatehouse } from '../gatehouse.ts';
export type { Actor } from '../membership/actor.ts';
export type { UserAdministration, UserSummary } from '../membership/user-administration.ts';
export type { ApiKeyAdministration } from '../membership/api-key-administration.ts';
export type { SigningKeyAdministration, SigningKeyRevocation } from '../membership/signing-key-administration.ts';
export type { SessionEnding } from '../membership/session-ending.ts';
export type { AuditPage, AuditTrail } from '../membership/audit-trail.ts';
export type { GatehouseMetrics, MetricsRegistry, ObservableHashQueue } from '../platform/metrics/gatehouse-metrics.ts';
export type { GatehousePolicies, PolicyName } from '../security/authorization/policy-names.ts';
export { MembershipPaths } from '../endpoints/membership-paths.ts';
export type { OpenApiOptions, OpenApiSecurityScheme } from './plugins/openapi.ts';
export { routeGroup } from './pipeline.ts';
export { closeOnSignals, type CloseOnSignalsOptions } from './shutdown.ts';
export { AuthorizationRefusal, type ResourcePolicy } from './resource-authorization.ts';
export { type AuthorizationResultHandler, problemResultHandler } from './authorization-result-handler.ts';
export { loadConfig, type Config } from '../config/config.ts';
export { configFromSettings, type GatehouseSettings, type OidcProviderSettings } from '../config/settings.ts';
export { ConfigError } from '../config/config-error.ts';
export { createLogger, type LoggerOptions } from '../platform/logger.ts';
export type { CheckState, Readiness } from '../platform/readiness.ts';
export type { RedisConnection } from '../platform/redis-connection.ts';
/** The logger `serverOptions` and Gatehouse take: pino's. */
export type { Logger } from 'pino';
export { UnsealError } from '../security/crypto/sealer.ts';
// The pages an application owns: options, typed models for its own renderers, and the escaping helpers.
export { type LocateAddress, type PageOptions, type PageModels, type PageName, type PageRenderers, DEFAULT_RENDERERS } from '../pages/rendering.ts';
export type { MailContent, MailContext, MailKit, MailName, MailOptions, MailTemplate, MailTemplates, MailVariables } from '../identity/mail-templates.ts';
export type { LayoutRenderer, PageContent, PageKit, PageRenderer } from '../pages/page-kit.ts';
export { Html, html, escapeHtml, type LayoutModel } from '../pages/html.ts';
export type { AccountPaths } from '../pages/paths.ts';
export { loggedPath } from '../endpoints/logged-path.ts';
