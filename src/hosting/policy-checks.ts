/**
 * The start-up checks of the application's policies, for every host: the schemes they name are
 * registered, and each requirement has a handler that decides it.
 */
import { unknownNameMessage } from '../config/option-names.ts';
import {
  type AuthorizationHandler,
  AuthorizationPolicy,
  type AuthorizationRequirement,
  type PolicyProvider,
  unhandledRequirements,
} from '../security/authorization/index.ts';

/**
 * The named, default and fallback policies, checked when Gatehouse starts: a policy no route
 * uses may still be asked for by `request.authorize` or a GraphQL field.
 */
export function checkPolicySchemes(
  named: Readonly<Record<string, AuthorizationPolicy>>,
  provider: Pick<PolicyProvider, 'defaultPolicy' | 'fallbackPolicy'>,
  schemes: readonly string[],
): void {
  const policies: [string, AuthorizationPolicy | null][] = [
    ...Object.entries(named).map(([name, policy]): [string, AuthorizationPolicy] => [`policy "${name}"`, policy]),
    ['the default policy', provider.defaultPolicy],
    ['the fallback policy', provider.fallbackPolicy],
  ];
  for (const [where, policy] of policies) {
    try {
      if (policy) refuseUnknownSchemes(policy, schemes);
    } catch (error) {
      throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** Refuses a policy naming a scheme that is not registered. */
export function refuseUnknownSchemes(policy: AuthorizationPolicy, schemes: readonly string[]): void {
  for (const scheme of policy.authenticationSchemes ?? []) {
    if (!schemes.includes(scheme)) throw new Error(unknownNameMessage(`no authentication scheme is registered as "${scheme}"`, scheme, schemes));
  }
}

/** The application's policies as the plugin was given them, each with how a warning names it. */
export interface GivenPolicies {
  readonly named: Readonly<Record<string, AuthorizationPolicy>>;
  readonly fallbackPolicy?: string | AuthorizationPolicy | null;
  readonly defaultPolicy?: string | AuthorizationPolicy;
}

/**
 * One warning per policy with a requirement no handler decides: every check of it fails, which
 * otherwise shows only as 403s. Policies given by name are named once, under their name. A host
 * logs them once the application is ready.
 */
export function unhandledRequirementWarnings(given: GivenPolicies, handlers: readonly AuthorizationHandler[]): string[] {
  const labelled: [string, AuthorizationPolicy][] = Object.entries(given.named).map(([name, policy]) => [`policy "${name}"`, policy]);
  if (given.fallbackPolicy instanceof AuthorizationPolicy) labelled.push(['the fallback policy', given.fallbackPolicy]);
  if (given.defaultPolicy instanceof AuthorizationPolicy) labelled.push(['the default policy', given.defaultPolicy]);
  const warnings: string[] = [];
  for (const [label, policy] of labelled) {
    const unhandled = unhandledRequirements(policy, handlers);
    if (unhandled.length === 0) continue;
    warnings.push(
      `${label} has requirements no handler decides (${unhandled.map(className).join(', ')}): its checks always fail; ` +
        'register a handler for them in `handlers`.',
    );
  }
  return warnings;
}

function className(requirement: AuthorizationRequirement): string {
  return requirement.constructor?.name || 'a requirement without a class';
}
