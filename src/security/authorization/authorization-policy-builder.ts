import { AuthorizationPolicy } from './authorization-policy.ts';
import type { AuthorizationRequirement } from './authorization-requirement.ts';
import { AssertionRequirement, type AuthorizationAssertion } from './requirements/assertion-requirement.ts';
import { ClaimsRequirement } from './requirements/claims-requirement.ts';
import { DenyAnonymousRequirement } from './requirements/deny-anonymous-requirement.ts';
import { NameRequirement } from './requirements/name-requirement.ts';
import { RolesRequirement } from './requirements/roles-requirement.ts';

/** Fluent construction of an `AuthorizationPolicy`, in ASP.NET's vocabulary. */
export class AuthorizationPolicyBuilder {
  private readonly requirements: AuthorizationRequirement[] = [];
  private readonly schemes: string[] = [];

  constructor(...authenticationSchemes: string[]) {
    this.schemes.push(...authenticationSchemes);
  }

  authenticationSchemes(...schemes: string[]): this {
    this.schemes.push(...schemes);
    return this;
  }

  addRequirement(...requirements: AuthorizationRequirement[]): this {
    this.requirements.push(...requirements);
    return this;
  }

  requireAuthenticatedUser(): this {
    return this.addRequirement(new DenyAnonymousRequirement());
  }

  /** Without values the claim only has to be present. */
  requireClaim(claimType: string, ...allowedValues: string[]): this {
    return this.addRequirement(new ClaimsRequirement(claimType, allowedValues));
  }

  requireRole(...roles: string[]): this {
    return this.addRequirement(new RolesRequirement(roles));
  }

  /** The identity's name (`name` claim) must be exactly this one (ASP.NET `RequireUserName`). */
  requireUserName(userName: string): this {
    return this.addRequirement(new NameRequirement(userName));
  }

  requireAssertion(assertion: AuthorizationAssertion, description?: string): this {
    return this.addRequirement(new AssertionRequirement(assertion, description));
  }

  combine(policy: AuthorizationPolicy): this {
    this.requirements.push(...policy.requirements);
    this.schemes.push(...policy.authenticationSchemes);
    return this;
  }

  build(): AuthorizationPolicy {
    return new AuthorizationPolicy(this.requirements, this.schemes);
  }
}
