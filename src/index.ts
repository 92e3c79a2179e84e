/** The library surface of Gatehouse, exported by name. */
export { Claim, ClaimTypes, ClaimsIdentity, ClaimsPrincipal, RESERVED_CLAIM_TYPES } from './security/claims/index.ts';
export {
  AssertionRequirement,
  AuthorizationHandlerContext,
  AuthorizationPolicy,
  AuthorizationPolicyBuilder,
  AuthorizationService,
  ClaimsRequirement,
  DenyAnonymousRequirement,
  instanceOf,
  NameRequirement,
  PolicyProvider,
  RequirementHandler,
  ResourceRequirementHandler,
  RolesRequirement,
  resolveEndpointPolicy,
  type AuthorizationAssertion,
  type AuthorizationFailure,
  type AuthorizationHandler,
  type AuthorizationMetadata,
  type AuthorizationOptions,
  type AuthorizationRequirement,
  type AuthorizationResult,
  type AuthorizeData,
  type ResourceGuard,
  type SelfHandlingRequirement,
} from './security/authorization/index.ts';
export {
  ApiKeyHandler,
  AuthenticateResult,
  AuthenticationSchemeProvider,
  BearerHandler,
  CookiesHandler,
  PolicyEvaluator,
  forwardByRequestShape,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type Challenge,
  type ForwardDefaultSelector,
  type PolicyAuthentication,
  type PolicyAuthorizationResult,
} from './security/authentication/index.ts';
export { GatehouseError, ERROR_CODES, type GatehouseErrorCode } from './security/errors.ts';
export { loadConfig, type Config } from './config/config.ts';
export { ConfigError } from './config/config-error.ts';
export { createStore } from './store/create-store.ts';
export type { Store } from './store/ports.ts';
export { createServices, type Services } from './services.ts';
export { buildApp, type AppOptions } from './http/app.ts';
export { routeGroup } from './http/pipeline.ts';
export type { AuthorizationResultHandler } from './http/authorization-result-handler.ts';
export { type Clock, ManualClock, systemClock } from './platform/clock.ts';
