import { membershipPolicies } from '../../policies/membership-policies.ts';
import type { AuthorizationMetadata } from '../../security/authorization/index.ts';
import type { PolicyName } from '../../security/authorization/policy-names.ts';

/**
 * The protection of the admin API (`AdminOnly`: role `Admin`), which its endpoints say nothing
 * of themselves: the group they lie in on every host (Fastify's route group, fetchHandler's `groups`).
 */
export const ADMIN_GROUP: AuthorizationMetadata<PolicyName> = Object.freeze({ authorize: [{ policy: membershipPolicies.admin }] });
