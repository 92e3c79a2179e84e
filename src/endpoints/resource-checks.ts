/**
 * Resource-based checks inside an endpoint (ASP.NET's `IAuthorizationService.AuthorizeAsync(User,
 * resource, policy)` followed by `Forbid()` or `Challenge()`): the check resolves when the caller
 * may act on the resource and otherwise throws the evaluator's refusal, which every host answers
 * as it answers a route's policy: 403, or for an anonymous caller the 401 (or login redirect) a
 * route protected by that policy would give.
 */
import type { AuthenticationRequest, PolicyAuthentication, PolicyEvaluator, PolicyRefusal } from '../security/authentication/index.ts';
import type { AuthorizationPolicy, AuthorizationRequirement, PolicyProvider } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';

/** What a resource check runs: a declared policy name, a policy, or requirements. */
export type ResourcePolicy = PolicyName | AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[];

/** The status each refusal is over HTTP. */
const STATUS = { challenge: 401, forbid: 403 } as const;

/**
 * A failed resource check: the evaluator's refusal, thrown. `statusCode` keeps it a 403 (401)
 * even under an application's own error handler; Gatehouse's hands it to the result handler.
 */
export class AuthorizationRefusal extends Error {
  readonly statusCode: 401 | 403;
  /** For a forbid: the schemes that authenticated the caller; none for a challenge. */
  readonly schemes: readonly string[];
  /** For a challenge: what the policy's schemes said of the request. */
  readonly authentication?: PolicyAuthentication;
  /**
   * The code a GraphQL server renders it with when a resolver throws it (graphql-js takes an
   * error's `extensions` as its own): `UNAUTHENTICATED` or `FORBIDDEN`, as for `@authorize`.
   */
  readonly extensions: { readonly code: 'UNAUTHENTICATED' | 'FORBIDDEN' };

  constructor(
    /** The evaluator's outcome: a challenge (anonymous caller) or a forbid. */
    readonly outcome: PolicyRefusal,
  ) {
    super(outcome.kind === 'forbid' ? 'The caller may not act on this resource.' : 'The caller is not authenticated.');
    this.name = 'AuthorizationRefusal';
    this.statusCode = STATUS[outcome.kind];
    this.extensions = { code: outcome.kind === 'forbid' ? 'FORBIDDEN' : 'UNAUTHENTICATED' };
    this.schemes = outcome.kind === 'forbid' ? outcome.schemes : [];
    if (outcome.kind === 'challenge') this.authentication = outcome.authentication;
  }
}

/** What resource checks run on: the application's policies and the evaluator of its schemes. */
export interface ResourceCheckOptions {
  readonly policies: PolicyProvider<string>;
  readonly evaluator: PolicyEvaluator;
}

/** The resource check of one request's caller, throwing `AuthorizationRefusal` when it fails. */
export type ResourceCheck = (resource: unknown, policy: ResourcePolicy) => Promise<void>;

/** Runs resource checks for callers of any host: a policy name resolves through the application's policies. */
export function resourceChecks({ policies, evaluator }: ResourceCheckOptions) {
  const resolve = (policy: ResourcePolicy) => (typeof policy === 'string' ? policies.get(policy) : policy);
  return {
    resolve,
    /** The check for `user`, the caller of `request`. */
    checkFor(user: ClaimsPrincipal, request: AuthenticationRequest): ResourceCheck {
      return async (resource, policy) => {
        const outcome = await evaluator.authorizeResource(user, resource, resolve(policy), request);
        if (outcome.kind !== 'success') throw new AuthorizationRefusal(outcome);
      };
    },
  };
}
