import type { AuditLog } from '../audit/audit-log.ts';
import type { SecurityChanges } from '../identity/security-changes.ts';
import type { PresentedSession, SignedInSession } from '../identity/sessions.ts';
import type { UserManager } from '../identity/user-manager.ts';
import type { UnitOfWork, User } from '../store/ports.ts';
import type { Actor } from './actor.ts';

export interface PasswordChangeOptions {
  readonly users: Pick<UserManager, 'provePasswordChange' | 'storePasswordHash'>;
  readonly audit: AuditLog;
  readonly securityChanges: SecurityChanges;
  /** The new password and `password.changed` commit together. */
  readonly unitOfWork: UnitOfWork;
}

/** The owner's current password, proven, and the new one. */
export interface PasswordPair {
  readonly currentPassword: string;
  readonly newPassword: string;
}

/**
 * A new password chosen by the account's owner, as one step: the change (the store bumps the
 * security stamp and writes its revocation event) and `password.changed` in one transaction,
 * then the revocation announced to every instance, and the session that asked re-issued under the new
 * stamp. A refused change (a wrong current password, counted toward lockout; a new one the rules
 * refuse; `AccountLockedError` while locked) throws before anything is written or announced.
 */
export class PasswordChange {
  constructor(private readonly options: PasswordChangeOptions) {}

  /** The asking session, re-issued (its cookie is the transport's to set); null for a caller without one. */
  async change(user: User, passwords: PasswordPair, actor: Actor, session: PresentedSession | null): Promise<SignedInSession | null> {
    const { users, audit, securityChanges, unitOfWork } = this.options;
    // Read before the change ends it: the replacement keeps the browser's persistence and method.
    const asking = await securityChanges.askingSession({ session });
    // Proven and hashed before the transaction: a wrong password's count must stay, and the
    // hashing must not hold SQLite's write lock.
    const passwordHash = await users.provePasswordChange(user, passwords.currentPassword, passwords.newPassword, { ip: actor.ip ?? null });
    await unitOfWork.atomically(async () => {
      await users.storePasswordHash(user.id, passwordHash);
      await audit.record('password.changed', { userId: user.id, ip: actor.ip ?? null });
    });
    return securityChanges.committed(asking);
  }
}
