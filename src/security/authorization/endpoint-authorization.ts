import { AuthorizationPolicy } from './authorization-policy.ts';
import { AuthorizationPolicyBuilder } from './authorization-policy-builder.ts';
import type { PolicyProvider } from './policy-provider.ts';

/** What an endpoint or a group says about its protection (ASP.NET `[Authorize]`). */
export interface AuthorizeData<Name extends string = string> {
  /** A named policy of the provider, or a policy object (a library's own routes carry theirs). */
  readonly policy?: Name | AuthorizationPolicy;
  readonly roles?: readonly string[];
  readonly schemes?: readonly string[];
}

export interface AuthorizationMetadata<Name extends string = string> {
  readonly authorize?: readonly AuthorizeData<Name>[];
  readonly allowAnonymous?: boolean;
}

/**
 * The policy an endpoint runs, or null for an anonymous one, as ASP.NET combines the
 * `[Authorize]` of an endpoint, its controller and its groups (`AuthorizationPolicy.CombineAsync`):
 * the endpoint's `authorize` entries and those of every group around it all apply, and the schemes
 * any of them names are tried. `allowAnonymous` on the endpoint beats them all. A group's
 * `allowAnonymous` opens the routes in it that ask for nothing themselves (nor does a group
 * between them and it); a route that does ask keeps what it asked for and what every group
 * around it asks, so a group can never widen a route. An endpoint under groups that say nothing
 * gets the fallback policy.
 *
 * `groups` are the groups around the endpoint, nearest first (one group may be passed alone).
 */
export function resolveEndpointPolicy<Name extends string>(
  provider: PolicyProvider<Name>,
  endpoint: AuthorizationMetadata<Name> = {},
  groups: AuthorizationMetadata<Name> | readonly AuthorizationMetadata<Name>[] = [],
): AuthorizationPolicy | null {
  const rules = endpointRules(endpoint, groups);
  if (rules === ANONYMOUS) return null;
  return rules.length > 0 ? combine(provider, rules) : provider.fallbackPolicy;
}

/**
 * Whether the metadata itself makes the endpoint anonymous (rather than the absence of a fallback
 * policy): `allowAnonymous` on it, or on a group that no nearer `authorize` overrides.
 */
export function isAnonymousEndpoint<Name extends string>(
  endpoint: AuthorizationMetadata<Name> = {},
  groups: AuthorizationMetadata<Name> | readonly AuthorizationMetadata<Name>[] = [],
): boolean {
  return endpointRules(endpoint, groups) === ANONYMOUS;
}

const ANONYMOUS = Symbol('anonymous');

/** Every `authorize` entry that applies to the endpoint, or ANONYMOUS. */
function endpointRules<Name extends string>(
  endpoint: AuthorizationMetadata<Name>,
  groups: AuthorizationMetadata<Name> | readonly AuthorizationMetadata<Name>[],
): readonly AuthorizeData<Name>[] | typeof ANONYMOUS {
  if (endpoint.allowAnonymous) return ANONYMOUS;
  const rules: AuthorizeData<Name>[] = [...(endpoint.authorize ?? [])];
  for (const group of isGroupList(groups) ? groups : [groups]) {
    if (group.allowAnonymous && rules.length === 0) return ANONYMOUS;
    rules.push(...(group.authorize ?? []));
  }
  return rules;
}

function isGroupList<Name extends string>(
  groups: AuthorizationMetadata<Name> | readonly AuthorizationMetadata<Name>[],
): groups is readonly AuthorizationMetadata<Name>[] {
  return Array.isArray(groups);
}

function combine<Name extends string>(provider: PolicyProvider<Name>, data: readonly AuthorizeData<Name>[]): AuthorizationPolicy {
  const builder = new AuthorizationPolicyBuilder();
  for (const item of data) {
    let named = false;
    if (item.policy !== undefined) {
      builder.combine(typeof item.policy === 'string' ? provider.get(item.policy) : item.policy);
      named = true;
    }
    if (item.roles && item.roles.length > 0) {
      builder.requireAuthenticatedUser().requireRole(...item.roles);
      named = true;
    }
    if (!named) builder.combine(provider.defaultPolicy);
    if (item.schemes) builder.authenticationSchemes(...item.schemes);
  }
  return builder.build();
}
