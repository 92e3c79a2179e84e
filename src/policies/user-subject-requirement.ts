import type { AuthorizationHandlerContext, SelfHandlingRequirement } from '../security/authorization/index.ts';

/** Met by a principal that stands for a user (has `sub`): API-key callers act for no user. */
export class UserSubjectRequirement implements SelfHandlingRequirement {
  readonly description = 'a user';

  handle(context: AuthorizationHandlerContext): void {
    if (context.user.isAuthenticated && context.user.subject !== null) context.succeed(this);
  }
}
