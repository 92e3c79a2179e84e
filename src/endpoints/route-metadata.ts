/**
 * The authorization metadata a host's route markers carry (Express's and Hono's `authorize(…)`
 * and `allowAnonymous()`), combined as ASP.NET combines several attributes on one endpoint.
 */
import type { AuthorizationMetadata, AuthorizeData } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** `authorize` entries combined into one metadata object, as several `[Authorize]` attributes are. */
export function authorizeMetadata(entries: readonly AuthorizeData<PolicyName>[]): AuthorizationMetadata<PolicyName> {
  return { authorize: entries.length === 0 ? [{}] : [...entries] };
}

/** A route's own markers as one metadata object: `authorize` entries joined, `allowAnonymous` if any says it. */
export function combinedMetadata(own: readonly AuthorizationMetadata<PolicyName>[]): AuthorizationMetadata<PolicyName> | undefined {
  if (own.length === 0) return undefined;
  if (own.length === 1) return own[0];
  const authorize = own.flatMap((metadata) => metadata.authorize ?? []);
  const allowAnonymous = own.some((metadata) => metadata.allowAnonymous === true);
  return { ...(authorize.length > 0 ? { authorize } : {}), ...(allowAnonymous ? { allowAnonymous } : {}) };
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;

/** A number for an object (a marker, a route), the same each time: the key of a decision kept per route. */
export function identityOf(item: object): number {
  let found = identities.get(item);
  if (found === undefined) identities.set(item, (found = ++nextIdentity));
  return found;
}
