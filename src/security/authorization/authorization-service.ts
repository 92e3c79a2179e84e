import type { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import { AuthorizationPolicy } from './authorization-policy.ts';
import {
  type AuthorizationHandler,
  type AuthorizationRequirement,
  isPrincipalRequirement,
  isSelfHandling,
  type PrincipalRequirement,
} from './authorization-requirement.ts';
import { AUTHORIZATION_SUCCESS, type AuthorizationFailure, type AuthorizationResult } from './authorization-result.ts';

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

  constructor(options: AuthorizationServiceOptions = {}) {
    this.handlers = options.handlers ?? [];
    this.invokeHandlersAfterFailure = options.invokeHandlersAfterFailure ?? true;
    this.onFailure = options.onFailure;
  }

  /**
   * Runs the requirements that handle themselves, then the registered handlers, in order;
   * `onFailure` hears of a refusal. Most handlers decide on the spot: only a promise is waited for.
   */
  async authorize(
    user: ClaimsPrincipal,
    resource: unknown,
    policyOrRequirements: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[],
  ): Promise<AuthorizationResult> {
    const requirements = requirementsOf(policyOrRequirements);
    const context = new AuthorizationHandlerContext(requirements, user, resource);
    let stopped = false;
    for (let i = 0; i < requirements.length && !stopped; i++) {
      const requirement = requirements[i]!;
      if (!isSelfHandling(requirement)) continue;
      const waiting = requirement.handle(context);
      if (waiting) await waiting;
      stopped = this.stopsAfter(context);
    }
    for (let i = 0; i < this.handlers.length && !stopped; i++) {
      const waiting = this.handlers[i]!.handle(context);
      if (waiting) await waiting;
      stopped = this.stopsAfter(context);
    }
    const result = evaluate(context);
    if (result.failure !== null) this.onFailure?.(result.failure, user);
    return result;
  }

  /**
   * `policy` as a rule on the principal alone, when it is one: each of its requirements is met or
   * not by the principal (`PrincipalRequirement`), and no registered handler may decide any of
   * them (a handler that names no requirement type may decide all). The rule's true is the
   * success `authorize` gives the same principal without a resource; a false is only "not at once":
   * `authorize` tells the failure, and `onFailure` hears of it there. Undefined for any other policy.
   *
   * A host answers a caller it knows at once with it, without waiting for a decision
   * (endpoints/authorize-endpoint.ts).
   */
  principalRule(policy: AuthorizationPolicy): ((user: ClaimsPrincipal) => boolean) | undefined {
    const requirements = policy.requirements;
    if (requirements.length === 0 || !requirements.every(isPrincipalRequirement)) return undefined;
    if (this.handlers.some((handler) => mayDecide(handler, requirements))) return undefined;
    const rules: readonly PrincipalRequirement[] = requirements;
    return (user) => rules.every((requirement) => requirement.isMetBy(user));
  }

  private stopsAfter(context: AuthorizationHandlerContext): boolean {
    return !this.invokeHandlersAfterFailure && context.hasFailed;
  }
}

function mayDecide(handler: AuthorizationHandler, requirements: readonly AuthorizationRequirement[]): boolean {
  const type = handler.requirementType;
  return type === undefined || requirements.some((requirement) => requirement instanceof type);
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
