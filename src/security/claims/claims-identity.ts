import { Claim, ClaimTypes } from './claim.ts';

/**
 * One identity of a principal, as a scheme established it. An identity is authenticated
 * when it has an authentication type (the scheme that vouched for it), as in .NET.
 */
export class ClaimsIdentity {
  readonly claims: readonly Claim[];

  constructor(
    claims: Iterable<Claim> = [],
    readonly authenticationType: string | null = null,
  ) {
    this.claims = [...claims];
  }

  get isAuthenticated(): boolean {
    return this.authenticationType !== null && this.authenticationType !== '';
  }

  /** The `name` claim: a user's userName, or the e-mail when there is none; null for API keys. */
  get name(): string | null {
    return this.findFirst(ClaimTypes.name)?.value ?? null;
  }

  findFirst(type: string): Claim | undefined {
    return this.claims.find((claim) => claim.type === type);
  }

  findAll(type: string): Claim[] {
    return this.claims.filter((claim) => claim.type === type);
  }

  hasClaim(type: string, value?: string): boolean {
    return this.claims.some((claim) => claim.type === type && (value === undefined || claim.value === value));
  }
}
