import type { AuthorizationPolicy } from './authorization-policy.ts';
import { type AuthorizationHandler, type AuthorizationRequirement, isSelfHandling } from './authorization-requirement.ts';

/**
 * The requirements of `policy` that nothing can meet: not their own handler, and of a class no
 * handler decides. Such a policy always fails (ASP.NET would say so only per request, in its
 * log). None are reported when some handler does not say which requirements it decides.
 */
export function unhandledRequirements(policy: AuthorizationPolicy, handlers: readonly AuthorizationHandler[]): AuthorizationRequirement[] {
  const types = handlers.map((handler) => handler.requirementType);
  if (types.includes(undefined)) return [];
  return policy.requirements.filter((requirement) => !isSelfHandling(requirement) && !types.some((type) => requirement instanceof type!));
}
