import type { AuditLog } from '../audit/audit-log.ts';
import type { User, UserStore } from '../store/ports.ts';
import type { AccountLockout, FailureContext } from './lockout.ts';

/** The account operations that ask for a password or code the signed-in caller must know. */
export type AccountOperation =
  | 'change-password'
  | 'replace-authenticator'
  | 'enable-two-factor'
  | 'disable-two-factor'
  | 'regenerate-recovery-codes'
  | 'confirm-phone';

/** The account is locked: the operation's password or code was not checked. */
export class AccountLockedError extends Error {
  /** When the automatic lockout ends (epoch ms); null for an admin lock, which has no end. */
  readonly until: number | null;

  constructor(user: Pick<User, 'lockedByAdmin' | 'lockoutEnd'>) {
    super('The account is locked.');
    this.name = 'AccountLockedError';
    this.until = user.lockedByAdmin ? null : user.lockoutEnd;
  }
}

export interface CredentialChecksOptions {
  readonly lockout: AccountLockout;
  readonly userStore: UserStore;
  readonly audit: AuditLog;
}

/**
 * A password or code checked at an account operation (docs/reference/membership.md): someone holding a
 * session, a stolen one included, must not get unlimited guesses at the current password or at
 * the second factor. So each check is a sign-in check in all but name: a wrong answer counts on
 * the account's one failure counter (and may lock it, with the mail and the `lockout` event) and
 * is a `signin.failed` event naming the operation; while the account is locked nothing is checked
 * at all (otherwise the lockout would throttle nothing). A right answer resets nothing: only a
 * completed sign-in does.
 */
export class CredentialChecks {
  constructor(private readonly options: CredentialChecksOptions) {}

  /**
   * Runs `check` for `operation` unless the account is locked (`AccountLockedError`, also when a
   * lockout began while it ran); false for a wrong password or code, counted.
   */
  async verify(
    user: User,
    operation: AccountOperation,
    credential: 'password' | 'code',
    check: () => Promise<boolean>,
    context: FailureContext = {},
  ): Promise<boolean> {
    const { lockout, userStore } = this.options;
    if (lockout.isLockedOut(user)) return this.refuseLocked(user, operation, context);
    if (!(await check())) {
      await lockout.accessFailed(user, context);
      await this.record(user, credential === 'password' ? 'wrong-password' : 'wrong-code', operation, context);
      return false;
    }
    // Concurrent wrong guesses may have locked the account while this one was checked: the lock
    // wins, so that a burst of guesses gets no more than the counter allows through.
    const current = await userStore.findById(user.id);
    if (current === null) return false;
    if (lockout.isLockedOut(current)) return this.refuseLocked(current, operation, context);
    return true;
  }

  private async refuseLocked(user: User, operation: AccountOperation, context: FailureContext): Promise<never> {
    await this.record(user, 'locked-out', operation, context);
    throw new AccountLockedError(user);
  }

  private record(user: User, reason: 'wrong-password' | 'wrong-code' | 'locked-out', operation: AccountOperation, context: FailureContext): Promise<void> {
    return this.options.audit.record('signin.failed', { userId: user.id, ip: context.ip, detail: { reason, operation } });
  }
}
