import type { Config } from '../config/config.ts';
import type { Clock } from '../platform/clock.ts';
import {
  type AuthorizationHandler,
  AuthorizationPolicyBuilder,
  AuthorizationService,
  PolicyProvider,
} from '../security/authorization/index.ts';
import { API_KEY_SCHEME } from '../security/authentication/index.ts';
import { BusinessHoursHandler, BusinessHoursRequirement } from './business-hours.ts';
import { MinimumAgeRequirement } from './minimum-age-requirement.ts';
import { OrgAdminHandler } from './org-admin.ts';
import { OwnershipHandler } from './ownership.ts';
import { PostAuthorHandler, SelfOrAdminHandler, SelfOrAdminRequirement } from './post-author.ts';
import { RoleGrantHandler } from './role-grant.ts';
import { UserSubjectRequirement } from './user-subject-requirement.ts';

/** The names of this service's policies: typed, so a misspelt name fails to compile. */
export type PolicyName = 'AdminOnly' | 'MinimumAge' | 'PremiumOnly' | 'BusinessHours' | 'User' | 'ApiClient' | 'SelfOrAdmin';

/** Every named policy starts with `requireAuthenticatedUser` (SPEC section 2). */
export function createPolicyProvider(config: Pick<Config, 'businessHours'>): PolicyProvider<PolicyName> {
  const policy = () => new AuthorizationPolicyBuilder().requireAuthenticatedUser();
  return new PolicyProvider<PolicyName>({
    policies: {
      AdminOnly: policy().requireRole('Admin').build(),
      MinimumAge: policy().addRequirement(new MinimumAgeRequirement(18)).build(),
      PremiumOnly: policy().requireClaim('subscription', 'premium').build(),
      BusinessHours: policy().addRequirement(new BusinessHoursRequirement(config.businessHours)).build(),
      User: policy().addRequirement(new UserSubjectRequirement()).build(),
      ApiClient: policy().authenticationSchemes(API_KEY_SCHEME).requireClaim('client').build(),
      // A resource policy: evaluated with the User being read (GraphQL's `User.email`).
      SelfOrAdmin: policy().addRequirement(new SelfOrAdminRequirement()).build(),
    },
  });
}

/** Handlers for the requirements that need a clock or a resource. */
export function createAuthorizationService(clock: Clock, timeZone: string): AuthorizationService {
  const handlers: AuthorizationHandler[] = [
    new BusinessHoursHandler(clock, timeZone),
    new OwnershipHandler(),
    new OrgAdminHandler(),
    new PostAuthorHandler(),
    new SelfOrAdminHandler(),
    new RoleGrantHandler(),
  ];
  return new AuthorizationService({ handlers });
}
