import type { AuditLog } from '../audit/audit-log.ts';
import type { SecurityChanges } from '../identity/security-changes.ts';
import type { PresentedSession, SignedInSession } from '../identity/sessions.ts';
import type { UserManager } from '../identity/user-manager.ts';
import type { User } from '../store/ports.ts';
import type { Actor } from './actor.ts';

export interface PasswordChangeOptions {
  readonly users: Pick<UserManager, 'changePassword'>;
  readonly audit: AuditLog;
  readonly securityChanges: SecurityChanges;
}

/** The owner's current password, proven, and the new one. */
export interface PasswordPair {
  readonly currentPassword: string;
  readonly newPassword: string;
}

/**
 * A new password chosen by the account's owner, as one step: the change (the store bumps the
 * security stamp and writes its revocation event in the same transaction), `password.changed`,
 * the revocation announced to every instance, and the session that asked re-issued under the new
 * stamp. A refused change (a wrong current password, counted toward lockout; a new one the rules
 * refuse; `AccountLockedError` while locked) throws before anything is written or announced.
 */
export class PasswordChange {
  constructor(private readonly options: PasswordChangeOptions) {}

  /** The asking session, re-issued (its cookie is the transport's to set); null for a caller without one. */
  async change(user: User, passwords: PasswordPair, actor: Actor, session: PresentedSession | null): Promise<SignedInSession | null> {
    const { users, audit, securityChanges } = this.options;
    // Read before the change ends it: the replacement keeps the browser's persistence and method.
    const asking = await securityChanges.askingSession({ session });
    await users.changePassword(user, passwords.currentPassword, passwords.newPassword, { ip: actor.ip ?? null });
    await audit.record('password.changed', { userId: user.id, ip: actor.ip ?? null });
    return securityChanges.committed(asking);
  }
}
