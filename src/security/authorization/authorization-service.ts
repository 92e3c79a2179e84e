import type { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import { AuthorizationPolicy } from './authorization-policy.ts';
import {
  type AuthorizationHandler,
  type AuthorizationRequirement,
  isSelfHandling,
} from './authorization-requirement.ts';
import { AUTHORIZATION_SUCCESS, type AuthorizationResult } from './authorization-result.ts';

export interface AuthorizationServiceOptions {
  /** Handlers for requirements that do not handle themselves (resource checks, clock-bound rules). */
  readonly handlers?: readonly AuthorizationHandler[];
  /** Keep running handlers after one called `fail` (ASP.NET `InvokeHandlersAfterFailure`). @default true */
  readonly invokeHandlersAfterFailure?: boolean;
}

/**
 * Decides whether a principal meets a policy, optionally about a resource. A pure function of
 * (principal, resource, requirements, the handlers' clock): no HTTP, no storage.
 */
export class AuthorizationService {
  private readonly handlers: readonly AuthorizationHandler[];
  private readonly invokeHandlersAfterFailure: boolean;
  /** The handler list of each policy, built once: policies are immutable and live as long as the app. */
  private readonly policyHandlers = new WeakMap<readonly AuthorizationRequirement[], AuthorizationHandler[]>();

  constructor(options: AuthorizationServiceOptions = {}) {
    this.handlers = options.handlers ?? [];
    this.invokeHandlersAfterFailure = options.invokeHandlersAfterFailure ?? true;
  }

  async authorize(
    user: ClaimsPrincipal,
    resource: unknown,
    policyOrRequirements: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[],
  ): Promise<AuthorizationResult> {
    const requirements = requirementsOf(policyOrRequirements);
    const context = new AuthorizationHandlerContext(requirements, user, resource);
    const handlers =
      policyOrRequirements instanceof AuthorizationPolicy ? this.handlersOfPolicy(requirements) : this.handlersFor(requirements);
    for (const handler of handlers) {
      const outcome = handler.handle(context);
      if (outcome) await outcome;
      if (!this.invokeHandlersAfterFailure && context.hasFailed) break;
    }
    return evaluate(context);
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
