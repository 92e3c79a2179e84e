import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { MailMessage, Mailer } from '../platform/mail/mailer.ts';
import { sendNotice } from '../platform/mail/send-notice.ts';
import { type ExternalLoginStore, externalMethod, type SessionStore, StoreConflictError, type UnitOfWork, type User } from '../store/ports.ts';
import { BUILT_IN_MAILS, type Mails } from './account-mail.ts';
import type { SecurityChanges, SelfServiceChange } from './security-changes.ts';

export interface ExternalLoginsOptions {
  readonly logins: ExternalLoginStore;
  readonly sessions: SessionStore;
  readonly audit: AuditLog;
  readonly mailer: Mailer;
  /** The notices, in the application's words. @default the built-in ones */
  readonly mails?: Mails;
  readonly clock: Clock;
  readonly logger: Logger;
  /** An unlink ends the sessions opened through the provider: announced to every instance. */
  readonly securityChanges: SecurityChanges;
  /** A link or an unlink commits with its audit event (an unlink, with the sessions it ends). */
  readonly unitOfWork: UnitOfWork;
}

/** A provider's login of a user: the provider's route name and its `sub`. */
export interface LoginToLink {
  readonly provider: string;
  readonly subject: string;
}

/** An unlink's outcome: unlinked (`askingEnded`: the session that asked was one opened through the provider), or refused. */
export type UnlinkOutcome = { readonly outcome: 'unlinked'; readonly askingEnded: boolean } | { readonly outcome: 'not-linked' | 'last-way-in' };

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
    const { logins, audit, clock, unitOfWork } = this.options;
    try {
      // The conflict ends the transaction (PostgreSQL refuses any statement after it): caught outside.
      await unitOfWork.atomically(async () => {
        await logins.add({ userId: user.id, provider: login.provider, subject: login.subject, createdAt: clock.now() });
        await audit.record('external.linked', { userId: user.id, ip: context.ip, detail: { provider: login.provider, how: context.how } });
      });
    } catch (error) {
      if (error instanceof StoreConflictError) return false;
      throw error;
    }
    await this.notify((mails) => mails.externalLinked(user, login.provider, context.how));
    return true;
  }

  /**
   * Unlinks the user's login at `provider` unless it is the last way to sign in, and ends the
   * sessions opened through it (their revocation event committed with them, and announced, so
   * that their sockets close at once everywhere). A refused unlink writes and announces nothing.
   */
  async unlink(user: User, provider: string, change: SelfServiceChange = {}): Promise<UnlinkOutcome> {
    const { logins, sessions, audit, securityChanges, unitOfWork } = this.options;
    // Read before the unlink ends it: the session that asks may be one opened through this provider.
    const asking = await securityChanges.askingSession(change);
    const method = externalMethod(provider);
    // The unlink, the sessions it ends and its audit event: all of them or none.
    const removed = await unitOfWork.atomically(async () => {
      const outcome = await logins.removeUnlessLastWayIn(user.id, provider);
      if (outcome !== 'removed') return outcome;
      const ended = await sessions.deleteUserSessionsByMethod(user.id, method);
      await audit.record('external.unlinked', { userId: user.id, ip: change.ip, detail: { provider, sessionsEnded: ended } });
      return outcome;
    });
    if (removed !== 'removed') return { outcome: removed };
    await this.notify((mails) => mails.externalUnlinked(user, provider));
    // Not a security change: the stamp stays, and no other session needs re-issuing.
    await securityChanges.committed(null);
    return { outcome: 'unlinked', askingEnded: asking?.method === method };
  }

  /** The providers linked to the user, in the order they were linked. */
  async providersOf(userId: number): Promise<string[]> {
    return (await this.options.logins.listForUser(userId)).map(({ provider }) => provider);
  }

  /** The change stands whether or not its notice is composed and leaves. */
  private notify(compose: (mails: Mails) => MailMessage): Promise<void> {
    return sendNotice(this.options.mailer, this.options.logger, () => compose(this.options.mails ?? BUILT_IN_MAILS));
  }
}
