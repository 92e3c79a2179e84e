import type { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationRequirement } from './authorization-requirement.ts';

/**
 * The state of one authorization decision. The whole rule of the engine lives in
 * `hasSucceeded`: every requirement must be met (AND), any handler may meet one (OR),
 * and an explicit `fail` from any handler wins.
 */
export class AuthorizationHandlerContext {
  /** Requirements no handler has met yet; policies hold a handful, so a list beats a set. */
  private readonly pending: AuthorizationRequirement[];
  private failCalled = false;
  private succeedCalled = false;
  private reasons: string[] | undefined;

  constructor(
    readonly requirements: readonly AuthorizationRequirement[],
    readonly user: ClaimsPrincipal,
    readonly resource: unknown,
  ) {
    this.pending = [...requirements];
  }

  get pendingRequirements(): AuthorizationRequirement[] {
    return [...this.pending];
  }

  get hasFailed(): boolean {
    return this.failCalled;
  }

  get hasSucceeded(): boolean {
    return !this.failCalled && this.succeedCalled && this.pending.length === 0;
  }

  /** Reasons given to `fail`, for logs; never sent to the caller. */
  get failureReasons(): readonly string[] {
    return this.reasons ?? [];
  }

  succeed(requirement: AuthorizationRequirement): void {
    this.succeedCalled = true;
    // Every copy goes: a requirement listed twice is met once.
    for (let index = this.pending.indexOf(requirement); index !== -1; index = this.pending.indexOf(requirement)) {
      this.pending.splice(index, 1);
    }
  }

  fail(reason?: string): void {
    this.failCalled = true;
    if (reason) (this.reasons ??= []).push(reason);
  }
}
