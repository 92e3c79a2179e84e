import type { AuditLog } from '../audit/audit-log.ts';
import type { PasswordHasher } from './password-hasher.ts';
import { SignInResult } from './sign-in-result.ts';
import type { UserManager } from './user-manager.ts';

export interface SignInContext {
  readonly ip?: string | null;
}

/**
 * Password sign-in as one explicit sequence: find the user, verify the password (a dummy hash
 * for unknown users), refuse locked accounts with the generic failure, then the e-mail rule.
 * Lockout counting, rate limits and the second factor arrive as further steps here.
 */
export class SignInManager {
  constructor(
    private readonly users: UserManager,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditLog,
    private readonly requireConfirmedEmail: boolean,
  ) {}

  async passwordSignIn(login: string, password: string, context: SignInContext = {}): Promise<SignInResult> {
    const user = await this.users.findByLogin(login);
    if (!user) {
      await this.hasher.verifyDummy(password);
      await this.audit.record('signin.failed', { ip: context.ip, detail: { reason: 'unknown-user' } });
      return SignInResult.failed;
    }
    const passwordMatches = await this.hasher.verify(user.passwordHash, password);
    const reason = this.users.isLockedOut(user) ? 'locked-out' : passwordMatches ? null : 'wrong-password';
    if (reason !== null) {
      await this.audit.record('signin.failed', { userId: user.id, ip: context.ip, detail: { reason } });
      return SignInResult.failed;
    }
    if (this.requireConfirmedEmail && !user.emailConfirmed) {
      await this.audit.record('signin.failed', { userId: user.id, ip: context.ip, detail: { reason: 'email-not-confirmed' } });
      return SignInResult.notAllowed;
    }
    await this.audit.record('signin.succeeded', { userId: user.id, ip: context.ip });
    return SignInResult.success(user);
  }
}
