import type { Challenge } from './authentication-handler.ts';
import type { PolicyAuthentication } from './policy-evaluator.ts';

/** The policy is met: the caller goes on. */
export interface PolicySuccess {
  readonly kind: 'success';
}

/**
 * No scheme vouched for a caller the policy needs to know: ask for credentials. `challenges` are
 * what the schemes asked say of the request (the scheme that judged a credential bad, else every
 * scheme consulted), in order; `authentication` is what each of them made of the request.
 */
export interface PolicyChallenge {
  readonly kind: 'challenge';
  readonly challenges: readonly Challenge[];
  readonly authentication: PolicyAuthentication;
}

/** A known caller who may not act: `schemes` name how the caller was known, never the requirement. */
export interface PolicyForbid {
  readonly kind: 'forbid';
  readonly schemes: readonly string[];
}

/** A refusal, as a transport renders it. */
export type PolicyRefusal = PolicyChallenge | PolicyForbid;

/**
 * The one authorization outcome (ASP.NET's `PolicyAuthorizationResult`), decided by
 * `PolicyEvaluator` for every transport: a route's policy, a resource check, a GraphQL field or
 * operation. It names no status: HTTP renders a challenge as 401 (or a login redirect) and a
 * forbid as 403, GraphQL as `UNAUTHENTICATED` and `FORBIDDEN`.
 */
export type PolicyAuthorizationResult = PolicySuccess | PolicyRefusal;

const SUCCESS: PolicySuccess = Object.freeze({ kind: 'success' });

export const PolicyAuthorizationResult = {
  success(): PolicySuccess {
    return SUCCESS;
  },
  challenge(challenges: readonly Challenge[], authentication: PolicyAuthentication): PolicyChallenge {
    return { kind: 'challenge', challenges, authentication };
  },
  forbid(schemes: readonly string[]): PolicyForbid {
    return { kind: 'forbid', schemes };
  },
};
