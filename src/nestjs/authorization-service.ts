import type { ResourcePolicy } from '../endpoints/resource-checks.ts';
import { resourceChecks } from '../endpoints/resource-checks.ts';
import type { GatehouseInstance } from '../hosting/gatehouse-instance.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';

/**
 * Resource checks for handlers and services (ASP.NET's `IAuthorizationService`): inject it, then
 * `await authorization.authorize(user, document, 'DocumentOwner')`. A refusal rejects with an
 * error that Gatehouse's exception filter answers with 403 (401 for an anonymous caller).
 */
export class AuthorizationService {
  private readonly checks;

  constructor(instance: GatehouseInstance) {
    this.checks = resourceChecks(instance.authorization);
  }

  /** Resolves when `user` may act on `resource` under `policy` (a policy name, a policy, or requirements). */
  authorize(user: ClaimsPrincipal, resource: unknown, policy: ResourcePolicy): Promise<void> {
    // No request: the refusal's challenge is written by the exception filter from the request it answers.
    return this.checks.checkFor(user, { headers: {} })(resource, policy);
  }
}
