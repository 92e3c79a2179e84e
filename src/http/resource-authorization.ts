/**
 * Resource-based checks inside an endpoint (ASP.NET's `IAuthorizationService.AuthorizeAsync(User,
 * resource, policy)` followed by `Forbid()` or `Challenge()`), as `request.authorize(resource,
 * policy)`: it resolves when the caller may act on the resource and otherwise throws the
 * evaluator's refusal, which is answered through the same authorization result handler as a
 * route's policy: 403, or for an anonymous caller the 401 (or login redirect) a route protected by
 * that policy would give.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PolicyAuthentication, PolicyEvaluator, PolicyRefusal } from '../security/authentication/index.ts';
import type { AuthorizationPolicy, AuthorizationRequirement, AuthorizationService, PolicyProvider } from '../security/authorization/index.ts';
import { authenticationRequest } from './pipeline.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** What a resource check runs: a declared policy name, a policy, or requirements. */
export type ResourcePolicy = PolicyName | AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[];

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Resolves when the caller meets `policy` about `resource`; otherwise throws an
     * `AuthorizationRefusal` that Gatehouse answers (403 for an authenticated caller; for an
     * anonymous one, the challenge of the policy's schemes) through the authorization result handler.
     */
    authorize(resource: unknown, policy: ResourcePolicy): Promise<void>;
    /** The same check as `authorize`, as a boolean, for endpoints that answer a refusal themselves. */
    isAuthorized(resource: unknown, policy: ResourcePolicy): Promise<boolean>;
  }
}

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

  constructor(
    /** The evaluator's outcome: a challenge (anonymous caller) or a forbid. */
    readonly outcome: PolicyRefusal,
  ) {
    super(outcome.kind === 'forbid' ? 'The caller may not act on this resource.' : 'The caller is not authenticated.');
    this.name = 'AuthorizationRefusal';
    this.statusCode = STATUS[outcome.kind];
    this.schemes = outcome.kind === 'forbid' ? outcome.schemes : [];
    if (outcome.kind === 'challenge') this.authentication = outcome.authentication;
  }
}

export function decorateResourceChecks(
  app: FastifyInstance,
  authorization: AuthorizationService,
  policies: PolicyProvider<string>,
  evaluator: PolicyEvaluator,
): void {
  const resolve = (policy: ResourcePolicy) => (typeof policy === 'string' ? policies.get(policy) : policy);
  async function isAuthorized(this: FastifyRequest, resource: unknown, policy: ResourcePolicy): Promise<boolean> {
    return (await authorization.authorize(this.user, resource, resolve(policy))).succeeded;
  }
  app.decorateRequest('isAuthorized', isAuthorized);
  app.decorateRequest('authorize', async function authorize(this: FastifyRequest, resource: unknown, policy: ResourcePolicy) {
    const outcome = await evaluator.authorizeResource(this.user, resource, resolve(policy), authenticationRequest(this));
    if (outcome.kind !== 'success') throw new AuthorizationRefusal(outcome);
  });
}
