import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { SelfHandlingRequirement } from '../authorization-requirement.ts';

/** Met when the principal is in any one of the roles (case-sensitive). */
export class RolesRequirement implements SelfHandlingRequirement {
  readonly allowedRoles: readonly string[];

  constructor(allowedRoles: readonly string[]) {
    if (allowedRoles.length === 0) throw new Error('RolesRequirement needs at least one role.');
    this.allowedRoles = Object.freeze([...allowedRoles]);
  }

  get description(): string {
    return `one of the roles [${this.allowedRoles.join(', ')}]`;
  }

  handle(context: AuthorizationHandlerContext): void {
    if (this.allowedRoles.some((role) => context.user.isInRole(role))) context.succeed(this);
  }
}
