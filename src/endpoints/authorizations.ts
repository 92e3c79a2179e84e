import { membershipPolicies } from '../policies/membership-policies.ts';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** Anyone may call: the endpoints that sign in, register, confirm or reset. */
export const ANONYMOUS: AuthorizationMetadata<PolicyName> = { allowAnonymous: true };

/** A signed-in user (API-key callers act for no user): `signedInUserId` always finds one. */
export const SIGNED_IN_USER: AuthorizationMetadata<PolicyName> = { authorize: [{ policy: membershipPolicies.user }] };
