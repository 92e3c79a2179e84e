import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { SelfHandlingRequirement } from '../authorization-requirement.ts';

/** Met when one of the principal's identities has exactly this name (the `name` claim; case-sensitive). */
export class NameRequirement implements SelfHandlingRequirement {
  constructor(readonly requiredName: string) {
    if (requiredName === '') throw new Error('NameRequirement needs a name.');
  }

  get description(): string {
    return `the user name ${this.requiredName}`;
  }

  /** Only an authenticated identity counts: a name on an anonymous one was asserted by no scheme. */
  handle(context: AuthorizationHandlerContext): void {
    const named = context.user.identities.some((identity) => identity.isAuthenticated && identity.name === this.requiredName);
    if (named) context.succeed(this);
  }
}
