import type { ClaimsPrincipal } from '../../claims/claims-principal.ts';
import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { PrincipalRequirement } from '../authorization-requirement.ts';

/** Met when the principal is in any one of the roles (case-sensitive). */
export class RolesRequirement implements PrincipalRequirement {
  readonly allowedRoles: readonly string[];

  constructor(allowedRoles: readonly string[]) {
    if (allowedRoles.length === 0) throw new Error('RolesRequirement needs at least one role.');
    this.allowedRoles = Object.freeze([...allowedRoles]);
  }

  get description(): string {
    return `one of the roles [${this.allowedRoles.join(', ')}]`;
  }

  isMetBy(user: ClaimsPrincipal): boolean {
    return this.allowedRoles.some((role) => user.isInRole(role));
  }

  handle(context: AuthorizationHandlerContext): void {
    if (this.isMetBy(context.user)) context.succeed(this);
  }
}
