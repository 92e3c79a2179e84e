import type { Claim } from './claim.ts';
import { ClaimTypes } from './claim.ts';
import { ClaimsIdentity } from './claims-identity.ts';

/** The caller: one or more identities. Anonymous callers have one unauthenticated identity. */
export class ClaimsPrincipal {
  readonly identities: readonly ClaimsIdentity[];

  constructor(identities: Iterable<ClaimsIdentity>) {
    this.identities = [...identities];
  }

  static anonymous(): ClaimsPrincipal {
    return ANONYMOUS;
  }

  /** The primary identity: the first authenticated one, else the first. */
  get identity(): ClaimsIdentity | undefined {
    return this.identities.find((identity) => identity.isAuthenticated) ?? this.identities[0];
  }

  get isAuthenticated(): boolean {
    return this.identities.some((identity) => identity.isAuthenticated);
  }

  get claims(): Claim[] {
    return this.identities.flatMap((identity) => identity.claims);
  }

  get name(): string | null {
    return this.identity?.name ?? null;
  }

  /** The `sub` claim: the user id as a decimal string; absent for API-key callers. */
  get subject(): string | null {
    return this.findFirst(ClaimTypes.subject)?.value ?? null;
  }

  findFirst(type: string): Claim | undefined {
    for (const identity of this.identities) {
      const claim = identity.findFirst(type);
      if (claim) return claim;
    }
    return undefined;
  }

  findAll(type: string): Claim[] {
    return this.identities.flatMap((identity) => identity.findAll(type));
  }

  hasClaim(type: string, value?: string): boolean {
    return this.identities.some((identity) => identity.hasClaim(type, value));
  }

  /** Roles are case-sensitive, as the contract says. */
  isInRole(role: string): boolean {
    return this.hasClaim(ClaimTypes.role, role);
  }

  /** The union of several principals' identities (a policy naming several schemes). */
  static merge(principals: readonly ClaimsPrincipal[]): ClaimsPrincipal {
    const authenticated = principals.flatMap((p) => p.identities.filter((identity) => identity.isAuthenticated));
    return authenticated.length === 0 ? ANONYMOUS : new ClaimsPrincipal(authenticated);
  }
}

const ANONYMOUS = new ClaimsPrincipal([new ClaimsIdentity()]);
