import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { User, UserStore } from '../store/ports.ts';
import type { PasswordHasher } from './password-hasher.ts';
import { SignInResult } from './sign-in-result.ts';
import type { UserManager } from './user-manager.ts';

export interface SignInContext {
  readonly ip?: string | null;
}

/** ASP.NET's `LockoutOptions`. */
export interface LockoutOptions {
  /** `MaxFailedAccessAttempts`: the failure that reaches it locks the account. */
  readonly maxAttempts: number;
  /** `DefaultLockoutTimeSpan`, in milliseconds. */
  readonly durationMs: number;
}

export interface SignInManagerOptions {
  readonly users: UserManager;
  /** The failure counter and its lockout live in the store, shared by every instance. */
  readonly userStore: UserStore;
  readonly hasher: PasswordHasher;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly requireConfirmedEmail: boolean;
  readonly lockout: LockoutOptions;
  /**
   * Tells the owner that the account locked until `until` (epoch ms), e.g. by mail. Called once
   * per lockout and not awaited by the sign-in, so that the locking attempt answers as fast as
   * any other failure; a failure of it is logged.
   */
  readonly onLockout?: (user: User, until: number) => Promise<void>;
}

type FailureReason = 'unknown-user' | 'locked-out' | 'wrong-password' | 'email-not-confirmed';

/**
 * Password sign-in as one explicit sequence: find the user, verify the password (a dummy hash
 * for unknown users), refuse locked accounts with the generic failure, count a wrong password
 * toward lockout, then the e-mail rule; a completed sign-in resets the count. A guesser learns
 * nothing but "no" (SPEC section 4). The second factor arrives as a further step here.
 */
export class SignInManager {
  constructor(private readonly options: SignInManagerOptions) {}

  async passwordSignIn(login: string, password: string, context: SignInContext = {}): Promise<SignInResult> {
    const { users, hasher } = this.options;
    const user = await users.findByLogin(login);
    if (!user) {
      await hasher.verifyDummy(password);
      return this.failed(null, 'unknown-user', context);
    }
    const passwordMatches = await hasher.verify(user.passwordHash, password);
    // Locked: the same answer for any password, and no further counting.
    if (users.isLockedOut(user)) return this.failed(user.id, 'locked-out', context);
    if (!passwordMatches) {
      await this.accessFailed(user, context);
      return this.failed(user.id, 'wrong-password', context);
    }
    if (this.options.requireConfirmedEmail && !user.emailConfirmed) {
      await this.record('signin.failed', user.id, context, 'email-not-confirmed');
      return SignInResult.notAllowed;
    }
    // A lockout committed by concurrent failures while this password was checked still wins.
    if (!(await this.options.userStore.completeSignIn(user.id, this.options.clock.now()))) {
      return this.failed(user.id, 'locked-out', context);
    }
    await this.options.audit.record('signin.succeeded', { userId: user.id, ip: context.ip });
    return SignInResult.success(user);
  }

  /**
   * ASP.NET's `AccessFailedAsync`: one more failure, and at the maximum a lockout with its event
   * and notice. Public for the second-factor steps, whose wrong codes count on the same counter
   * (SPEC section 7).
   */
  async accessFailed(user: User, context: SignInContext = {}): Promise<void> {
    const { userStore, clock, lockout } = this.options;
    const now = clock.now();
    const until = now + lockout.durationMs;
    const locked = await userStore.recordFailedSignIn(user.id, { maxAttempts: lockout.maxAttempts, lockoutEnd: until, now });
    if (!locked) return;
    await this.options.audit.record('lockout', {
      userId: user.id,
      ip: context.ip,
      detail: { until: new Date(until).toISOString(), attempts: lockout.maxAttempts },
    });
    this.notifyLockout(user, until);
  }

  private notifyLockout(user: User, until: number): void {
    const { onLockout, logger } = this.options;
    if (!onLockout) return;
    onLockout(user, until).catch((error: unknown) =>
      logger.warn({ err: error, userId: user.id }, 'could not tell the owner that the account locked'),
    );
  }

  private async failed(userId: number | null, reason: FailureReason, context: SignInContext): Promise<SignInResult> {
    await this.record('signin.failed', userId, context, reason);
    return SignInResult.failed;
  }

  private record(type: 'signin.failed', userId: number | null, context: SignInContext, reason: FailureReason): Promise<void> {
    return this.options.audit.record(type, { userId, ip: context.ip, detail: { reason } });
  }
}
