/**
 * Resource-based checks inside an endpoint (ASP.NET's `IAuthorizationService.AuthorizeAsync(User,
 * resource, policy)` followed by `Forbid()` or `Challenge()`), as `request.authorize(resource,
 * policy)`: it resolves when the caller may act on the resource and otherwise throws a refusal,
 * which is answered through the same authorization result handler as a route's policy: 403, or for
 * an anonymous caller the 401 (or login redirect) a route protected by that policy would give.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PolicyAuthentication, PolicyEvaluator } from '../security/authentication/index.ts';
import {
  AuthorizationPolicy,
  type AuthorizationRequirement,
  type AuthorizationService,
  type PolicyProvider,
} from '../security/authorization/index.ts';
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

/**
 * A failed resource check. `statusCode` keeps it a 403 (401) even under an application's own
 * error handler; Gatehouse's hands it to the result handler.
 */
export class AuthorizationRefusal extends Error {
  readonly statusCode: 401 | 403;

  constructor(
    /** The schemes that authenticated the caller (none for an anonymous one). */
    readonly schemes: readonly string[],
    /** For an anonymous caller: what the policy's schemes said of the request, for their challenge. */
    readonly authentication?: PolicyAuthentication,
  ) {
    super(schemes.length > 0 ? 'The caller may not act on this resource.' : 'The caller is not authenticated.');
    this.name = 'AuthorizationRefusal';
    this.statusCode = schemes.length > 0 ? 403 : 401;
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
    const resolved = resolve(policy);
    if ((await authorization.authorize(this.user, resource, resolved)).succeeded) return;
    const schemes = authenticatedSchemes(this);
    if (schemes.length > 0) throw new AuthorizationRefusal(schemes);
    // The schemes a route with this policy would have asked (the policy's, else the default for
    // the request's shape) give the challenge, as they would have on that route.
    const challenged = resolved instanceof AuthorizationPolicy ? resolved : null;
    throw new AuthorizationRefusal([], await evaluator.authenticate(challenged, authenticationRequest(this)));
  });
}

function authenticatedSchemes(request: FastifyRequest): string[] {
  return request.user.identities.filter((identity) => identity.isAuthenticated).map((identity) => identity.authenticationType ?? '');
}
