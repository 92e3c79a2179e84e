import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { SelfHandlingRequirement } from '../authorization-requirement.ts';

/** Met by any authenticated principal. Like every built-in requirement, it never calls `fail`. */
export class DenyAnonymousRequirement implements SelfHandlingRequirement {
  readonly description = 'an authenticated user';

  handle(context: AuthorizationHandlerContext): void {
    if (context.user.isAuthenticated) context.succeed(this);
  }
}
