import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { ClaimsPrincipal } from '../../claims/claims-principal.ts';
import type { PrincipalRequirement } from '../authorization-requirement.ts';

/** Met by any authenticated principal. Like every built-in requirement, it never calls `fail`. */
export class DenyAnonymousRequirement implements PrincipalRequirement {
  readonly description = 'an authenticated user';

  isMetBy(user: ClaimsPrincipal): boolean {
    return user.isAuthenticated;
  }

  handle(context: AuthorizationHandlerContext): void {
    if (this.isMetBy(context.user)) context.succeed(this);
  }
}
