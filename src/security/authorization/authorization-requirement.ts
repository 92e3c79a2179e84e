import type { AuthorizationHandlerContext } from './authorization-handler-context.ts';

/** A rule a policy demands. It carries data only; handlers decide whether it is met. */
export interface AuthorizationRequirement {
  /** Shown in logs only, never to callers (a 403 names no requirement). */
  readonly description?: string;
}

/**
 * A handler that may satisfy (or veto) requirements. Handlers that cannot decide do nothing:
 * `fail` is for a definite "no" that must win over any other handler's `succeed`.
 */
export interface AuthorizationHandler {
  handle(context: AuthorizationHandlerContext): void | Promise<void>;
}

/** A requirement that is also its own handler (the built-in ones are). */
export interface SelfHandlingRequirement extends AuthorizationRequirement, AuthorizationHandler {}

export function isSelfHandling(requirement: AuthorizationRequirement): requirement is SelfHandlingRequirement {
  return typeof (requirement as Partial<SelfHandlingRequirement>).handle === 'function';
}

type RequirementClass<R extends AuthorizationRequirement> = abstract new (...args: never[]) => R;

/**
 * Base for a handler of one requirement type, optionally with a resource
 * (ASP.NET's `AuthorizationHandler<TRequirement, TResource>`).
 */
export abstract class RequirementHandler<R extends AuthorizationRequirement, TResource = unknown>
  implements AuthorizationHandler
{
  protected constructor(private readonly requirementType: RequirementClass<R>) {}

  handle(context: AuthorizationHandlerContext): void | Promise<void> {
    let pending: Promise<void>[] | undefined;
    for (const requirement of context.requirements) {
      if (requirement instanceof this.requirementType) {
        const outcome = this.handleRequirement(context, requirement, context.resource as TResource);
        if (outcome) (pending ??= []).push(outcome);
      }
    }
    if (pending) return Promise.all(pending).then(() => undefined);
  }

  protected abstract handleRequirement(
    context: AuthorizationHandlerContext,
    requirement: R,
    resource: TResource,
  ): void | Promise<void>;
}
