import type { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationHandlerContext } from './authorization-handler-context.ts';

/**
 * A rule a policy demands (ASP.NET's `IAuthorizationRequirement`). It carries data only; handlers
 * decide whether it is met, finding theirs by class. Any object is one: a class with data of its
 * own (`constructor(readonly minimumAge: number) {}`) needs no other member. (An interface of
 * optional members alone would be a "weak type", which TypeScript refuses for an object sharing
 * none of them; `object &` makes it no weak type.)
 */
export type AuthorizationRequirement = object & {
  /** Shown in logs only, never to callers (a 403 names no requirement). */
  readonly description?: string;
};

/**
 * A handler that may satisfy (or veto) requirements. Handlers that cannot decide do nothing:
 * `fail` is for a definite "no" that must win over any other handler's `succeed`.
 */
export interface AuthorizationHandler {
  handle(context: AuthorizationHandlerContext): void | Promise<void>;
  /**
   * The class of the requirements it decides (`RequirementHandler` and `ResourceRequirementHandler`
   * say it), so that a requirement nobody decides is reported at start. A handler that does not
   * say may decide any requirement.
   */
  readonly requirementType?: RequirementClass<AuthorizationRequirement>;
}

/** A requirement that is also its own handler (the built-in ones are). */
export interface SelfHandlingRequirement extends AuthorizationRequirement, AuthorizationHandler {}

export function isSelfHandling(requirement: AuthorizationRequirement): requirement is SelfHandlingRequirement {
  return typeof (requirement as Partial<SelfHandlingRequirement>).handle === 'function';
}

/**
 * A requirement met or not by the principal alone, on the spot: no resource, no clock, no
 * store (the built-in ones: an authenticated user, roles, claims, a name). Its `handle` succeeds
 * exactly when `isMetBy` says so and never fails, so a policy of such requirements alone, which
 * no registered handler decides as well, is a rule on the principal (`AuthorizationService.principalRule`).
 */
export interface PrincipalRequirement extends SelfHandlingRequirement {
  isMetBy(user: ClaimsPrincipal): boolean;
}

export function isPrincipalRequirement(requirement: AuthorizationRequirement): requirement is PrincipalRequirement {
  return isSelfHandling(requirement) && typeof (requirement as Partial<PrincipalRequirement>).isMetBy === 'function';
}

/** The class of a requirement, by which a handler picks the requirements it handles. */
export type RequirementClass<R extends AuthorizationRequirement> = abstract new (...args: never[]) => R;

/**
 * Base for a handler of one requirement type that does not look at the resource (ASP.NET's
 * `AuthorizationHandler<TRequirement>`). A handler that judges a resource extends
 * `ResourceRequirementHandler` instead, which is never called without a resource of its type.
 */
export abstract class RequirementHandler<R extends AuthorizationRequirement> implements AuthorizationHandler {
  protected constructor(readonly requirementType: RequirementClass<R>) {}

  handle(context: AuthorizationHandlerContext): void | Promise<void> {
    return forEachRequirement(context, this.requirementType, (requirement) => this.handleRequirement(context, requirement));
  }

  protected abstract handleRequirement(context: AuthorizationHandlerContext, requirement: R): void | Promise<void>;
}

/** Calls `handle` for each of the context's requirements of one type; waits for those that wait. */
export function forEachRequirement<R extends AuthorizationRequirement>(
  context: AuthorizationHandlerContext,
  requirementType: RequirementClass<R>,
  handle: (requirement: R) => void | Promise<void>,
): void | Promise<void> {
  let pending: Promise<void>[] | undefined;
  for (const requirement of context.requirements) {
    if (requirement instanceof requirementType) {
      const outcome = handle(requirement);
      if (outcome) (pending ??= []).push(outcome);
    }
  }
  if (pending) return Promise.all(pending).then(() => undefined);
}
