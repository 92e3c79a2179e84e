/**
 * Compiled by the type check, never run: a requirement that carries its own data, on the shape
 * of ASP.NET's `MinimumAgeRequirement`, is a requirement under `strict` without a member added
 * to please the compiler, and its handler still finds it by its class. Each `@ts-expect-error`
 * fails the type check if its line compiles.
 */
import {
  type AuthorizationHandlerContext,
  AuthorizationPolicy,
  AuthorizationPolicyBuilder,
  type AuthorizationRequirement,
  RequirementHandler,
} from 'gatehouse-auth';

export class MinimumAgeRequirement implements AuthorizationRequirement {
  constructor(readonly minimumAge: number) {}
}

export class MinimumAgeHandler extends RequirementHandler<MinimumAgeRequirement> {
  constructor() {
    super(MinimumAgeRequirement);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: MinimumAgeRequirement): void {
    const age = Number(context.user.findFirst('age')?.value);
    if (age >= requirement.minimumAge) context.succeed(requirement);
  }
}

/** A class that does not say `implements`, passed where a requirement is expected. */
class TenantRequirement {
  constructor(readonly tenantId: string) {}
}

export const adults = new AuthorizationPolicyBuilder().requireAuthenticatedUser().addRequirement(new MinimumAgeRequirement(18)).build();
export const tenants = new AuthorizationPolicy([new TenantRequirement('acme'), new MinimumAgeRequirement(21)]);

// @ts-expect-error a number is no requirement.
export const numbers = new AuthorizationPolicy([18]);

export const describedWrongly = new AuthorizationPolicy([
  // @ts-expect-error a description is text.
  { description: 18 },
]);
