/**
 * Resource-based checks inside an endpoint (ASP.NET's `IAuthorizationService.AuthorizeAsync(User,
 * resource, policy)` followed by `Forbid()` or `Challenge()`), as `request.authorize(resource,
 * policy)`: it resolves when the caller may act on the resource and otherwise throws the
 * evaluator's refusal, which is answered through the same authorization result handler as a
 * route's policy: 403, or for an anonymous caller the 401 (or login redirect) a route protected by
 * that policy would give.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { resourceChecks, type ResourcePolicy } from '../endpoints/resource-checks.ts';
import type { PolicyEvaluator } from '../security/authentication/index.ts';
import type { AuthorizationService, PolicyProvider } from '../security/authorization/index.ts';
import { authenticationRequest } from './pipeline.ts';

export { AuthorizationRefusal, type ResourcePolicy } from '../endpoints/resource-checks.ts';

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

export function decorateResourceChecks(
  app: FastifyInstance,
  authorization: AuthorizationService,
  policies: PolicyProvider<string>,
  evaluator: PolicyEvaluator,
): void {
  const checks = resourceChecks({ policies, evaluator });
  const resolve = checks.resolve;
  async function isAuthorized(this: FastifyRequest, resource: unknown, policy: ResourcePolicy): Promise<boolean> {
    return (await authorization.authorize(this.user, resource, resolve(policy))).succeeded;
  }
  app.decorateRequest('isAuthorized', isAuthorized);
  app.decorateRequest('authorize', function authorize(this: FastifyRequest, resource: unknown, policy: ResourcePolicy) {
    return checks.checkFor(this.user, authenticationRequest(this))(resource, policy);
  });
}
