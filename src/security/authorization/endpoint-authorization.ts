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
 * The policy an endpoint runs, or null for an anonymous one. Endpoint metadata beats group
 * metadata, `allowAnonymous` on the endpoint beats `authorize` on its group, and an endpoint
 * that says nothing under a group that says nothing gets the fallback policy.
 */
export function resolveEndpointPolicy<Name extends string>(
  provider: PolicyProvider<Name>,
  endpoint: AuthorizationMetadata<Name> = {},
  group: AuthorizationMetadata<Name> = {},
): AuthorizationPolicy | null {
  for (const metadata of [endpoint, group]) {
    if (metadata.allowAnonymous) return null;
    if (metadata.authorize && metadata.authorize.length > 0) return combine(provider, metadata.authorize);
  }
  return provider.fallbackPolicy;
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
