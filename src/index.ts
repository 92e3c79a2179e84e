/**
 * `gatehouse-auth`: the framework-free core. Claims and principals, policies and their builder,
 * requirements and handlers, the authorization service, the authentication handler contract and
 * its results, errors. Nothing here knows of HTTP, GraphQL or a database; the type of the
 * `Gatehouse` every host gives the application is here too.
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
  type GatehousePolicies,
  type PolicyName,
  type PrincipalRequirement,
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
  PolicyAuthorizationResult,
  PolicyEvaluator,
  externalJwtBearer,
  forwardByRequestShape,
  requestPath,
  singleHeader,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type BearerTokenValidation,
  type BearerTokenValidator,
  type Challenge,
  type ClaimSource,
  type CredentialSources,
  type ForwardDefaultSelector,
  type JwtBearerOptions,
  type PublicKeyInput,
  type PolicyAuthentication,
  type PolicyChallenge,
  type PolicyForbid,
  type PolicyRefusal,
  type PolicySuccess,
  type RevocationConcerns,
  type RevocationKind,
} from './security/authentication/index.ts';
export { GatehouseError, ERROR_CODES, ProblemError, type GatehouseErrorCode } from './security/errors.ts';
export { type Clock, ManualClock, systemClock } from './platform/clock.ts';
export { UserSubjectRequirement } from './policies/user-subject-requirement.ts';
export {
  byOrganizationId,
  inActiveOrganization,
  OrganizationRequirement,
  OrganizationRequirementHandler,
  organizationAdmin,
  organizationMember,
  organizationRole,
  type OrganizationOf,
  type OrganizationRequirementOptions,
} from './organizations/organization-requirements.ts';
export { ORG_ADMIN, ORG_MEMBER, ORG_OWNER, ORGANIZATION_CLAIM, SUPER_ADMIN_ROLE } from './organizations/organization-roles.ts';
export type { CallerOrganization, InvitationPreview, OrganizationCaller, Organizations } from './organizations/organizations.ts';
export type { Organization, OrganizationInvitation, OrganizationMember, OrganizationSummary } from './store/ports.ts';
/** What a host gives the application (`app.gatehouse` on Fastify, `auth.gatehouse` on Express): its use cases, policies and store. */
export type { Gatehouse } from './gatehouse.ts';
/** The words of the pages, the mails and the problems (docs/pages.md, "Languages"): the built-in catalogues, to start an application's own from, their keys, and the phrases a refusal is worded with. */
export { de, en, type LanguageOptions, type MessageKey, type Messages, type Phrase, type WordedFieldErrors, type Wording } from './i18n/index.ts';
