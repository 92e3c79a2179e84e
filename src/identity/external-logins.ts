import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { MailMessage, Mailer } from '../platform/mail/mailer.ts';
import { sendNotice } from '../platform/mail/send-notice.ts';
import { type ExternalLoginStore, externalMethod, type SessionStore, StoreConflictError, type User } from '../store/ports.ts';
import { externalLinkedMail, externalUnlinkedMail } from './account-mail.ts';

export interface ExternalLoginsOptions {
  readonly logins: ExternalLoginStore;
  readonly sessions: SessionStore;
  readonly audit: AuditLog;
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** A provider's login of a user: the provider's route name and its `sub`. */
export interface LoginToLink {
  readonly provider: string;
  readonly subject: string;
}

export type UnlinkOutcome = 'unlinked' | 'not-linked' | 'last-way-in';

/**
 * Linking and unlinking providers to an existing account (docs/external-login.md). Each change
 * writes its security event and mails the owner a notice at the stored address: a link handed
 * to someone else, or a provider cut off, is news the owner must get. Unlinking also ends the
 * sessions opened through that provider.
 */
export class ExternalLogins {
  constructor(private readonly options: ExternalLoginsOptions) {}

  /**
   * Links the login to the user, who completed a sign-in with it (`how: 'email'`) or asked from
   * the profile; false when that login belongs to someone else or the user has one at that provider.
   */
  async link(user: User, login: LoginToLink, context: { ip?: string | null; how: 'profile' | 'email' }): Promise<boolean> {
    const { logins, audit, clock } = this.options;
    try {
      await logins.add({ userId: user.id, provider: login.provider, subject: login.subject, createdAt: clock.now() });
    } catch (error) {
      if (error instanceof StoreConflictError) return false;
      throw error;
    }
    await audit.record('external.linked', { userId: user.id, ip: context.ip, detail: { provider: login.provider, how: context.how } });
    await this.notify(externalLinkedMail(user, login.provider, context.how));
    return true;
  }

  /**
   * Unlinks the user's login at `provider` unless it is the last way to sign in, and ends the
   * sessions opened through it (with the revocation event that closes their sockets).
   */
  async unlink(user: User, provider: string, context: { ip?: string | null } = {}): Promise<UnlinkOutcome> {
    const { logins, sessions, audit } = this.options;
    const removed = await logins.removeUnlessLastWayIn(user.id, provider);
    if (removed !== 'removed') return removed;
    const ended = await sessions.deleteUserSessionsByMethod(user.id, externalMethod(provider));
    await audit.record('external.unlinked', { userId: user.id, ip: context.ip, detail: { provider, sessionsEnded: ended } });
    await this.notify(externalUnlinkedMail(user, provider));
    return 'unlinked';
  }

  /** The change stands whether or not its notice leaves. */
  private notify(message: MailMessage): Promise<void> {
    return sendNotice(this.options.mailer, this.options.logger, message);
  }
}
