import type { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationRequirement } from './authorization-requirement.ts';

/**
 * The state of one authorization decision. The whole rule of the engine lives in
 * `hasSucceeded`: every requirement must be met (AND), any handler may meet one (OR),
 * and an explicit `fail` from any handler wins.
 */
export class AuthorizationHandlerContext {
  private readonly pending: Set<AuthorizationRequirement>;
  private failCalled = false;
  private succeedCalled = false;
  private readonly reasons: string[] = [];

  constructor(
    readonly requirements: readonly AuthorizationRequirement[],
    readonly user: ClaimsPrincipal,
    readonly resource: unknown,
  ) {
    this.pending = new Set(requirements);
  }

  get pendingRequirements(): AuthorizationRequirement[] {
    return [...this.pending];
  }

  get hasFailed(): boolean {
    return this.failCalled;
  }

  get hasSucceeded(): boolean {
    return !this.failCalled && this.succeedCalled && this.pending.size === 0;
  }

  /** Reasons given to `fail`, for logs; never sent to the caller. */
  get failureReasons(): readonly string[] {
    return this.reasons;
  }

  succeed(requirement: AuthorizationRequirement): void {
    this.succeedCalled = true;
    this.pending.delete(requirement);
  }

  fail(reason?: string): void {
    this.failCalled = true;
    if (reason) this.reasons.push(reason);
  }
}
