import type { AuthorizationRequirement } from './authorization-requirement.ts';

/**
 * A named set of requirements (all must be met) and, optionally, the authentication schemes
 * whose principals it judges. No schemes means the default forwarding scheme.
 */
export class AuthorizationPolicy {
  readonly requirements: readonly AuthorizationRequirement[];
  readonly authenticationSchemes: readonly string[];

  constructor(requirements: readonly AuthorizationRequirement[], authenticationSchemes: readonly string[] = []) {
    if (requirements.length === 0) throw new Error('An authorization policy needs at least one requirement.');
    this.requirements = Object.freeze([...requirements]);
    this.authenticationSchemes = Object.freeze([...new Set(authenticationSchemes)]);
  }

  /** Both policies at once: requirements and schemes joined (ASP.NET `Combine`). */
  static combine(...policies: AuthorizationPolicy[]): AuthorizationPolicy {
    return new AuthorizationPolicy(
      policies.flatMap((p) => p.requirements),
      policies.flatMap((p) => p.authenticationSchemes),
    );
  }
}
