import { AuthorizationPolicy } from './authorization-policy.ts';
import { AuthorizationPolicyBuilder } from './authorization-policy-builder.ts';

export interface AuthorizationOptions<Name extends string> {
  /** Named policies, resolved by name once at start-up. */
  readonly policies: Readonly<Record<Name, AuthorizationPolicy>>;
  /** Used by an `authorize` that names neither policy nor roles. @default authenticated user */
  readonly defaultPolicy?: AuthorizationPolicy;
  /**
   * Used by endpoints that carry no authorization metadata at all; `null` for none (ASP.NET's
   * default: such endpoints are open, and a caller's credentials are still read).
   * @default authenticated user
   */
  readonly fallbackPolicy?: AuthorizationPolicy | null;
}

/** Looks up named, default and fallback policies. An unknown name is a start-up error, not a 500. */
export class PolicyProvider<Name extends string = string> {
  readonly defaultPolicy: AuthorizationPolicy;
  readonly fallbackPolicy: AuthorizationPolicy | null;
  private readonly policies: ReadonlyMap<string, AuthorizationPolicy>;

  constructor(options: AuthorizationOptions<Name>) {
    const authenticated = new AuthorizationPolicyBuilder().requireAuthenticatedUser().build();
    this.defaultPolicy = options.defaultPolicy ?? authenticated;
    this.fallbackPolicy = options.fallbackPolicy === undefined ? authenticated : options.fallbackPolicy;
    this.policies = new Map(Object.entries<AuthorizationPolicy>(options.policies));
  }

  get(name: Name): AuthorizationPolicy {
    const policy = this.policies.get(name);
    if (!policy) throw new Error(`No authorization policy is named "${name}".`);
    return policy;
  }

  has(name: string): name is Name {
    return this.policies.has(name);
  }
}
