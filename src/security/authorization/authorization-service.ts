import type { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import { AuthorizationPolicy } from './authorization-policy.ts';
import {
  type AuthorizationHandler,
  type AuthorizationRequirement,
  isSelfHandling,
} from './authorization-requirement.ts';
import { AUTHORIZATION_SUCCESS, type AuthorizationFailure, type AuthorizationResult } from './authorization-result.ts';
import { andThen, type MaybePromise } from '../maybe-async.ts';

export interface AuthorizationServiceOptions {
  /** Handlers for requirements that do not handle themselves (resource checks, clock-bound rules). */
  readonly handlers?: readonly AuthorizationHandler[];
  /** Keep running handlers after one called `fail` (ASP.NET `InvokeHandlersAfterFailure`). @default true */
  readonly invokeHandlersAfterFailure?: boolean;
  /**
   * Hears of every decision that failed, with the requirements no handler met and the reasons
   * handlers gave (ASP.NET logs "These requirements were not met"): for logs, never for callers.
   */
  readonly onFailure?: (failure: AuthorizationFailure, user: ClaimsPrincipal) => void;
}

/**
 * Decides whether a principal meets a policy, optionally about a resource. A pure function of
 * (principal, resource, requirements, the handlers' clock): no HTTP, no storage.
 */
export class AuthorizationService {
  private readonly handlers: readonly AuthorizationHandler[];
  private readonly invokeHandlersAfterFailure: boolean;
  private readonly onFailure: AuthorizationServiceOptions['onFailure'];
  /** The handler list of each policy, built once: policies are immutable and live as long as the app. */
  private readonly policyHandlers = new WeakMap<readonly AuthorizationRequirement[], AuthorizationHandler[]>();

  constructor(options: AuthorizationServiceOptions = {}) {
    this.handlers = options.handlers ?? [];
    this.invokeHandlersAfterFailure = options.invokeHandlersAfterFailure ?? true;
    this.onFailure = options.onFailure;
  }

  async authorize(
    user: ClaimsPrincipal,
    resource: unknown,
    policyOrRequirements: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[],
  ): Promise<AuthorizationResult> {
    return this.decide(user, resource, policyOrRequirements);
  }

  /**
   * The same decision as `authorize`, returned at once when every handler decides synchronously
   * (the pipeline's hot path); a promise as soon as one handler has to wait.
   */
  decide(
    user: ClaimsPrincipal,
    resource: unknown,
    policyOrRequirements: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[],
  ): MaybePromise<AuthorizationResult> {
    const requirements = requirementsOf(policyOrRequirements);
    const context = new AuthorizationHandlerContext(requirements, user, resource);
    const handlers =
      policyOrRequirements instanceof AuthorizationPolicy ? this.handlersOfPolicy(requirements) : this.handlersFor(requirements);
    const decision = this.runHandlers(handlers, 0, context);
    const { onFailure } = this;
    if (onFailure === undefined) return decision;
    return andThen(decision, (result) => {
      if (result.failure !== null) onFailure(result.failure, user);
      return result;
    });
  }

  private runHandlers(
    handlers: readonly AuthorizationHandler[],
    from: number,
    context: AuthorizationHandlerContext,
  ): MaybePromise<AuthorizationResult> {
    for (let index = from; index < handlers.length; index++) {
      const outcome = handlers[index]!.handle(context);
      if (outcome) {
        return outcome.then(() =>
          this.stopsAfter(context) ? evaluate(context) : this.runHandlers(handlers, index + 1, context),
        );
      }
      if (this.stopsAfter(context)) break;
    }
    return evaluate(context);
  }

  private stopsAfter(context: AuthorizationHandlerContext): boolean {
    return !this.invokeHandlersAfterFailure && context.hasFailed;
  }

  private handlersOfPolicy(requirements: readonly AuthorizationRequirement[]): AuthorizationHandler[] {
    let handlers = this.policyHandlers.get(requirements);
    if (!handlers) this.policyHandlers.set(requirements, (handlers = this.handlersFor(requirements)));
    return handlers;
  }

  /** Requirements that handle themselves run first, then the registered handlers. */
  private handlersFor(requirements: readonly AuthorizationRequirement[]): AuthorizationHandler[] {
    return [...requirements.filter(isSelfHandling), ...this.handlers];
  }
}

function requirementsOf(
  input: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[],
): readonly AuthorizationRequirement[] {
  if (input instanceof AuthorizationPolicy) return input.requirements;
  if (Array.isArray(input)) {
    if (input.length === 0) throw new Error('authorize() needs at least one requirement.');
    return input;
  }
  return [input as AuthorizationRequirement];
}

function evaluate(context: AuthorizationHandlerContext): AuthorizationResult {
  if (context.hasSucceeded) return AUTHORIZATION_SUCCESS;
  return {
    succeeded: false,
    failure: {
      failCalled: context.hasFailed,
      failedRequirements: context.pendingRequirements,
      failureReasons: context.failureReasons,
    },
  };
}
