import type { ClaimsPrincipal } from '../../claims/claims-principal.ts';
import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { PrincipalRequirement } from '../authorization-requirement.ts';

/** Met when one of the principal's identities has exactly this name (the `name` claim; case-sensitive). */
export class NameRequirement implements PrincipalRequirement {
  constructor(readonly requiredName: string) {
    if (requiredName === '') throw new Error('NameRequirement needs a name.');
  }

  get description(): string {
    return `the user name ${this.requiredName}`;
  }

  /** Only an authenticated identity counts: a name on an anonymous one was asserted by no scheme. */
  isMetBy(user: ClaimsPrincipal): boolean {
    return user.identities.some((identity) => identity.isAuthenticated && identity.name === this.requiredName);
  }

  handle(context: AuthorizationHandlerContext): void {
    if (this.isMetBy(context.user)) context.succeed(this);
  }
}
