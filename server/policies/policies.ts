import {
  API_KEY_SCHEME,
  type AuthorizationHandler,
  type AuthorizationPolicy,
  AuthorizationPolicyBuilder,
  AuthorizationService,
  type Clock,
  OrganizationRequirementHandler,
  PolicyProvider,
  UserSubjectRequirement,
} from 'gatehouse-auth';
import type { BusinessHours } from '../settings.ts';
import { BusinessHoursHandler, BusinessHoursRequirement } from './business-hours.ts';
import { MinimumAgeRequirement } from './minimum-age-requirement.ts';
import { OwnershipHandler } from './ownership.ts';
import { PostAuthorHandler, SelfOrAdminHandler, SelfOrAdminRequirement } from './post-author.ts';

// The service's policy names, declared to Gatehouse: a misspelt one fails to compile wherever a
// route, a group or a resource check names it.
declare module 'gatehouse-auth' {
  interface GatehousePolicies {
    AdminOnly: true;
    MinimumAge: true;
    PremiumOnly: true;
    BusinessHours: true;
    User: true;
    ApiClient: true;
    SelfOrAdmin: true;
  }
}

export type PolicyName = 'AdminOnly' | 'MinimumAge' | 'PremiumOnly' | 'BusinessHours' | 'User' | 'ApiClient' | 'SelfOrAdmin';

/** Every named policy starts with `requireAuthenticatedUser` (docs/reference/http.md). */
export function servicePolicies(businessHours: BusinessHours): Record<PolicyName, AuthorizationPolicy> {
  const policy = () => new AuthorizationPolicyBuilder().requireAuthenticatedUser();
  return {
    AdminOnly: policy().requireRole('Admin').build(),
    MinimumAge: policy().addRequirement(new MinimumAgeRequirement(18)).build(),
    PremiumOnly: policy().requireClaim('subscription', 'premium').build(),
    BusinessHours: policy().addRequirement(new BusinessHoursRequirement(businessHours)).build(),
    User: policy().addRequirement(new UserSubjectRequirement()).build(),
    ApiClient: policy().authenticationSchemes(API_KEY_SCHEME).requireClaim('client').build(),
    // A resource policy: evaluated with the User being read (GraphQL's `User.email`).
    SelfOrAdmin: policy().addRequirement(new SelfOrAdminRequirement()).build(),
  };
}

/** Handlers for the requirements that need a clock or a resource (Gatehouse judges `OrgAdmin`'s, an organization requirement, itself). */
export function serviceHandlers(clock: Clock, timeZone: string): AuthorizationHandler[] {
  return [new BusinessHoursHandler(clock, timeZone), new OwnershipHandler(), new PostAuthorHandler(), new SelfOrAdminHandler()];
}

/** The policies as a provider, as Gatehouse looks them up (for tests of the policies alone). */
export function createPolicyProvider(config: { businessHours: BusinessHours }): PolicyProvider<PolicyName> {
  return new PolicyProvider<PolicyName>({ policies: servicePolicies(config.businessHours) });
}

export function createAuthorizationService(clock: Clock, timeZone: string): AuthorizationService {
  return new AuthorizationService({ handlers: [...serviceHandlers(clock, timeZone), new OrganizationRequirementHandler()] });
}
