/**
 * Resource-based checks inside an endpoint (ASP.NET's `IAuthorizationService.AuthorizeAsync(User,
 * resource, policy)` followed by `Forbid()`), as `request.authorize(resource, policy)`: it resolves
 * when the caller may act on the resource and otherwise throws a refusal, which is answered through
 * the same authorization result handler as a route's policy (403, or 401 for an anonymous caller).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {
  AuthorizationPolicy,
  AuthorizationRequirement,
  AuthorizationService,
  PolicyProvider,
} from '../security/authorization/index.ts';
import type { PolicyName } from './policy-names.ts';

/** What a resource check runs: a declared policy name, a policy, or requirements. */
export type ResourcePolicy = PolicyName | AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[];

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Resolves when the caller meets `policy` about `resource`; otherwise throws an
     * `AuthorizationRefusal` that Gatehouse answers (403 for an authenticated caller, 401 for an
     * anonymous one) through the authorization result handler.
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
  ) {
    super(schemes.length > 0 ? 'The caller may not act on this resource.' : 'The caller is not authenticated.');
    this.name = 'AuthorizationRefusal';
    this.statusCode = schemes.length > 0 ? 403 : 401;
  }
}

export function decorateResourceChecks(app: FastifyInstance, authorization: AuthorizationService, policies: PolicyProvider<string>): void {
  const resolve = (policy: ResourcePolicy) => (typeof policy === 'string' ? policies.get(policy) : policy);
  async function isAuthorized(this: FastifyRequest, resource: unknown, policy: ResourcePolicy): Promise<boolean> {
    return (await authorization.authorize(this.user, resource, resolve(policy))).succeeded;
  }
  app.decorateRequest('isAuthorized', isAuthorized);
  app.decorateRequest('authorize', async function authorize(this: FastifyRequest, resource: unknown, policy: ResourcePolicy) {
    if (await isAuthorized.call(this, resource, policy)) return;
    throw new AuthorizationRefusal(authenticatedSchemes(this));
  });
}

function authenticatedSchemes(request: FastifyRequest): string[] {
  return request.user.identities.filter((identity) => identity.isAuthenticated).map((identity) => identity.authenticationType ?? '');
}
