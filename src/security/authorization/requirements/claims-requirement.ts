import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { SelfHandlingRequirement } from '../authorization-requirement.ts';

/** Met when the principal has a claim of `claimType`, with one of `allowedValues` when any are given. */
export class ClaimsRequirement implements SelfHandlingRequirement {
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

  handle(context: AuthorizationHandlerContext): void {
    const found =
      this.allowedValues.length === 0
        ? context.user.hasClaim(this.claimType)
        : context.user.findAll(this.claimType).some((claim) => this.allowedValues.includes(claim.value));
    if (found) context.succeed(this);
  }
}
