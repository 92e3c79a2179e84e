import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { User, UserStore } from '../store/ports.ts';

/** ASP.NET's `LockoutOptions`. */
export interface LockoutOptions {
  /** `MaxFailedAccessAttempts`: the failure that reaches it locks the account. */
  readonly maxAttempts: number;
  /** `DefaultLockoutTimeSpan`, in milliseconds. */
  readonly durationMs: number;
}

export interface AccountLockoutOptions {
  /** The failure counter and its lockout live in the store, shared by every instance. */
  readonly userStore: UserStore;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly lockout: LockoutOptions;
  /**
   * Tells the owner that the account locked until `until` (epoch ms), e.g. by mail. Called once
   * per lockout and not awaited, so that the locking attempt answers as fast as any other
   * failure; a failure of it is logged.
   */
  readonly onLockout?: (user: User, until: number) => Promise<void>;
}

/** What a failed check was part of, for the audit event. */
export interface FailureContext {
  readonly ip?: string | null;
}

/** Locked by an admin, or within an automatic lockout at `now`. */
export function isLockedOutAt(user: Pick<User, 'lockedByAdmin' | 'lockoutEnd'>, now: number): boolean {
  return user.lockedByAdmin || (user.lockoutEnd !== null && user.lockoutEnd > now);
}

/**
 * The account's one failure counter (docs/reference/membership.md), ASP.NET's `AccessFailedAsync`: every wrong
 * password or code — at sign-in, at its second step, and at an account operation that checks
 * one — counts here, and the failure that reaches the maximum locks the account for the lockout
 * time, with a `lockout` audit event and a notice to the owner.
 */
export class AccountLockout {
  constructor(private readonly options: AccountLockoutOptions) {}

  get durationMs(): number {
    return this.options.lockout.durationMs;
  }

  isLockedOut(user: Pick<User, 'lockedByAdmin' | 'lockoutEnd'>): boolean {
    return isLockedOutAt(user, this.options.clock.now());
  }

  /** One more failure; true when this one locked the account. */
  async accessFailed(user: User, context: FailureContext = {}): Promise<boolean> {
    const { userStore, clock, lockout, audit } = this.options;
    const now = clock.now();
    const until = now + lockout.durationMs;
    const locked = await userStore.recordFailedSignIn(user.id, { maxAttempts: lockout.maxAttempts, lockoutEnd: until, now });
    if (!locked) return false;
    await audit.record('lockout', {
      userId: user.id,
      ip: context.ip,
      detail: { until: new Date(until).toISOString(), attempts: lockout.maxAttempts },
    });
    this.notify(user, until);
    return true;
  }

  private notify(user: User, until: number): void {
    const { onLockout, logger } = this.options;
    if (!onLockout) return;
    onLockout(user, until).catch((error: unknown) =>
      logger.warn({ err: error, userId: user.id }, 'could not tell the owner that the account locked'),
    );
  }
}
