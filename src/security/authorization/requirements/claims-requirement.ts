import type { ClaimsPrincipal } from '../../claims/claims-principal.ts';
import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { PrincipalRequirement } from '../authorization-requirement.ts';

/** Met when the principal has a claim of `claimType`, with one of `allowedValues` when any are given. */
export class ClaimsRequirement implements PrincipalRequirement {
  readonly allowedValues: readonly string[];

  constructor(
    readonly claimType: string,
    allowedValues: readonly string[] = [],
  ) {
    this.allowedValues = Object.freeze([...allowedValues]);
  }

  get description(): string {
    return this.allowedValues.length === 0
      ? `a claim ${this.claimType}`
      : `a claim ${this.claimType} in [${this.allowedValues.join(', ')}]`;
  }

  isMetBy(user: ClaimsPrincipal): boolean {
    if (this.allowedValues.length === 0) return user.hasClaim(this.claimType);
    return user.findAll(this.claimType).some((claim) => this.allowedValues.includes(claim.value));
  }

  handle(context: AuthorizationHandlerContext): void {
    if (this.isMetBy(context.user)) context.succeed(this);
  }
}
