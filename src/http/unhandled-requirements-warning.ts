import type { FastifyInstance } from 'fastify';
import {
  type AuthorizationHandler,
  AuthorizationPolicy,
  type AuthorizationRequirement,
  unhandledRequirements,
} from '../security/authorization/index.ts';

/** The application's policies as the plugin was given them, each with how a warning names it. */
export interface GivenPolicies {
  readonly named: Readonly<Record<string, AuthorizationPolicy>>;
  readonly fallbackPolicy?: string | AuthorizationPolicy | null;
  readonly defaultPolicy?: string | AuthorizationPolicy;
}

/**
 * Once the application is ready, one warning per policy with a requirement no handler decides:
 * every check of it fails, which otherwise shows only as 403s. Policies given by name are named
 * once, under their name.
 */
export function warnOfUnhandledRequirements(app: FastifyInstance, given: GivenPolicies, handlers: readonly AuthorizationHandler[]): void {
  const labelled: [string, AuthorizationPolicy][] = Object.entries(given.named).map(([name, policy]) => [`policy "${name}"`, policy]);
  if (given.fallbackPolicy instanceof AuthorizationPolicy) labelled.push(['the fallback policy', given.fallbackPolicy]);
  if (given.defaultPolicy instanceof AuthorizationPolicy) labelled.push(['the default policy', given.defaultPolicy]);
  app.addHook('onReady', async () => {
    for (const [label, policy] of labelled) {
      const unhandled = unhandledRequirements(policy, handlers);
      if (unhandled.length === 0) continue;
      app.log.warn(
        `${label} has requirements no handler decides (${unhandled.map(className).join(', ')}): its checks always fail; ` +
          'register a handler for them in `handlers`.',
      );
    }
  });
}

function className(requirement: AuthorizationRequirement): string {
  return requirement.constructor?.name || 'a requirement without a class';
}
