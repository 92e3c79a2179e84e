/**
 * `gatehouse-auth`: the framework-free core. Claims and principals, policies and their builder,
 * requirements and handlers, the authorization service, the authentication handler contract and
 * its results, errors. Nothing here knows of HTTP, GraphQL or a database.
 */
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
  API_KEY_SCHEME,
  ApiKeyHandler,
  AuthenticateResult,
  BEARER_SCHEME,
  COOKIES_SCHEME,
  AuthenticationSchemeProvider,
  BearerHandler,
  CookiesHandler,
  IssuerMetadataError,
  JwtBearerHandler,
  JwtBearerOptionsError,
  PolicyEvaluator,
  externalJwtBearer,
  forwardByRequestShape,
  singleHeader,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type BearerTokenValidation,
  type BearerTokenValidator,
  type Challenge,
  type ClaimSource,
  type ForwardDefaultSelector,
  type JwtBearerOptions,
  type PublicKeyInput,
  type PolicyAuthentication,
  type PolicyAuthorizationResult,
} from './security/authentication/index.ts';
export { GatehouseError, ERROR_CODES, ProblemError, type GatehouseErrorCode } from './security/errors.ts';
export { type Clock, ManualClock, systemClock } from './platform/clock.ts';
export { UserSubjectRequirement } from './policies/user-subject-requirement.ts';
