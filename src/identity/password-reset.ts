import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { Mailer } from '../platform/mail/mailer.ts';
import type { Random } from '../platform/random.ts';
import type { RevocationFeed } from '../revocation/revocation-feed.ts';
import type { AccountCodeStore, ExternalLoginStore, PasskeyStore, ResetRemovals, UnitOfWork } from '../store/ports.ts';
import { accountCodeHash, isAccountCodeShape, newAccountCode, RESET_CODE_MS } from './account-codes.ts';
import { type AccountLinks, BUILT_IN_MAILS, type Mails } from './account-mail.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { UserManager } from './user-manager.ts';

export interface PasswordResetOptions {
  readonly users: UserManager;
  readonly hasher: PasswordHasher;
  readonly codes: AccountCodeStore;
  /** Listed in the reset mail, and removed by a reset that asks. */
  readonly passkeys: PasskeyStore;
  /** Listed in the reset mail, and unlinked by a reset that asks. */
  readonly logins: ExternalLoginStore;
  readonly mailer: Mailer;
  /** The reset mail, in the application's words. @default the built-in one */
  readonly mails?: Mails;
  readonly audit: AuditLog;
  /** Told of each reset, which ended the user's sessions and tokens: their sockets close at once, here and elsewhere. */
  readonly revocationFeed: Pick<RevocationFeed, 'changed'>;
  /** The reset commits with its audit event. */
  readonly unitOfWork: UnitOfWork;
  readonly clock: Clock;
  readonly random: Random;
  readonly requireConfirmedEmail: boolean;
}

/**
 * Forgotten passwords (docs/reference/http.md): a reset link to the stored address, working once for an
 * hour, a newer link voiding older ones; the reset itself is a security change that ends every
 * session, refresh token and access token of the user. A reset is also how an owner takes back
 * a stolen account: the mail lists the passkeys and external logins that sign in to it besides
 * the password, and the reset removes them when asked (decision 0065: kept unless asked, since
 * most resets are a forgotten password, not a theft).
 */
export class PasswordReset {
  constructor(private readonly options: PasswordResetOptions) {}

  /**
   * Sends a reset link when the address belongs to an account that may sign in (a confirmed one,
   * when confirmation is required: a link would otherwise confirm nothing and prove nothing).
   * The caller answers the same either way, and does not wait for this: the time taken would tell.
   * `links` say where the reset page is (the HTTP ring's routes); `language` is the request's, the mail's.
   */
  async requestReset(email: string, links: AccountLinks, language?: string): Promise<void> {
    const { users, codes, clock, random, mailer, mails = BUILT_IN_MAILS, requireConfirmedEmail } = this.options;
    const user = await users.findByEmail(email);
    if (user === null || (requireConfirmedEmail && !user.emailConfirmed)) return;
    const code = newAccountCode(random);
    const now = clock.now();
    await codes.issue({ userId: user.id, purpose: 'reset-password', codeHash: accountCodeHash(code), createdAt: now, expiresAt: now + RESET_CODE_MS });
    const waysIn = {
      passkeys: (await this.options.passkeys.listForUser(user.id)).map(({ name, createdAt }) => ({ name, createdAt })),
      externalLogins: (await this.options.logins.listForUser(user.id)).map(({ provider }) => provider),
    };
    await mailer.send(mails.resetPassword(user, code, links, waysIn, language));
  }

  /**
   * True when the code was right and the password is changed (with the removals asked for, in
   * the same step), its `password.reset` event written and the revocation announced; the
   * password rules give a 400 first. A refused reset writes and announces nothing.
   */
  async reset(email: string, code: unknown, newPassword: string, context: { ip?: string | null; clientKey?: string; remove?: ResetRemovals } = {}): Promise<boolean> {
    const { users, hasher, codes, clock, audit } = this.options;
    users.validatePassword(newPassword, 'newPassword');
    const user = await users.findByEmail(email);
    if (user === null || !isAccountCodeShape(code)) return false;
    const passwordHash = await hasher.hash(newPassword, context.clientKey);
    const remove = { passkeys: context.remove?.passkeys === true, externalLogins: context.remove?.externalLogins === true };
    const done = await this.options.unitOfWork.atomically(async () => {
      const reset = await codes.resetPassword({ userId: user.id, codeHash: accountCodeHash(code), passwordHash, now: clock.now(), remove });
      if (reset) await audit.record('password.reset', { userId: user.id, ip: context.ip, detail: { removedPasskeys: remove.passkeys, removedExternalLogins: remove.externalLogins } });
      return reset;
    });
    if (!done) return false;
    await this.options.revocationFeed.changed();
    return true;
  }
}
