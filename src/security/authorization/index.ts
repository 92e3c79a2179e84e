export { AuthorizationHandlerContext } from './authorization-handler-context.ts';
export { AuthorizationPolicy } from './authorization-policy.ts';
export { AuthorizationPolicyBuilder } from './authorization-policy-builder.ts';
export {
  type AuthorizationHandler,
  type AuthorizationRequirement,
  type PrincipalRequirement,
  type SelfHandlingRequirement,
  RequirementHandler,
} from './authorization-requirement.ts';
export { instanceOf, type ResourceGuard, ResourceRequirementHandler } from './resource-requirement-handler.ts';
export type { AuthorizationFailure, AuthorizationResult } from './authorization-result.ts';
export { AuthorizationService, type AuthorizationServiceOptions } from './authorization-service.ts';
export { unhandledRequirements } from './unhandled-requirements.ts';
export { PolicyProvider, type AuthorizationOptions } from './policy-provider.ts';
export type { GatehousePolicies, PolicyName } from './policy-names.ts';
export { isAnonymousEndpoint, resolveEndpointPolicy, type AuthorizationMetadata, type AuthorizeData } from './endpoint-authorization.ts';
export { AssertionRequirement, type AuthorizationAssertion } from './requirements/assertion-requirement.ts';
export { ClaimsRequirement } from './requirements/claims-requirement.ts';
export { NameRequirement } from './requirements/name-requirement.ts';
export { DenyAnonymousRequirement } from './requirements/deny-anonymous-requirement.ts';
export { RolesRequirement } from './requirements/roles-requirement.ts';
