import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Actor } from '../membership/actor.ts';
import type { Clock } from '../platform/clock.ts';
import type { Mailer, MailMessage } from '../platform/mail/mailer.ts';
import { sendNotice } from '../platform/mail/send-notice.ts';
import type { Random } from '../platform/random.ts';
import { GatehouseError } from '../security/errors.ts';
import type { AccountCodeStore, UnitOfWork, User } from '../store/ports.ts';
import { accountCodeHash, CONFIRMATION_CODE_MS, isAccountCodeShape, newAccountCode } from './account-codes.ts';
import { type AccountLinks, BUILT_IN_MAILS, type Mails } from './account-mail.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { UserManager } from './user-manager.ts';

export interface RegistrationOptions {
  readonly users: UserManager;
  readonly hasher: PasswordHasher;
  readonly codes: AccountCodeStore;
  readonly mailer: Mailer;
  /** The confirmation mails and the notice, in the application's words. @default the built-in ones */
  readonly mails?: Mails;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  readonly requireConfirmedEmail: boolean;
  readonly audit: AuditLog;
  /** An admin's resend commits with its audit event. */
  readonly unitOfWork: UnitOfWork;
  /** After a code confirms an address (the first time or again): what else a confirmed address brings (pending invitations). */
  readonly onEmailConfirmed?: (user: User) => Promise<unknown>;
}

export interface RegistrationInput {
  readonly email: string;
  readonly password: string;
  readonly userName?: string | null;
}

/**
 * Registration and e-mail confirmation (docs/reference/http.md). No answer depends on whether the address
 * has an account: a taken user name is 409 whoever holds it (the same account included), before
 * the address is looked at; otherwise the answer is the same 202, and only the mail differs, going
 * only to the stored address:
 *   - a new address gets an account and a confirmation link (also when sign-in does not require
 *     confirmation: the address is then unconfirmed but usable);
 *   - an unconfirmed account gets a fresh link (older ones void) saying that someone registered
 *     again and that its password did not change. The request's password is never stored: a
 *     link that applied it would let a stranger who registers with someone's address before
 *     they confirm choose the password of the account they then confirm (a takeover);
 *   - a confirmed account (or any, when confirmation is not required) gets a notice.
 * Every path hashes the password once, so the time taken does not tell them apart either; mail
 * leaves in the background for the same reason. The confirmation link is the caller's: the HTTP
 * ring knows where its routes are mounted (ASP.NET's endpoints build it likewise).
 */
/** Who registers: their client, for the hashing queue's turns, and their language, for the mail. */
export interface RegistrationContext {
  readonly clientKey?: string;
  readonly language?: string;
}

export class Registration {
  constructor(private readonly options: RegistrationOptions) {}

  /**
   * `context.clientKey`: whose request it is, for the hashing queue's turns (`SignInContext.clientKey`);
   * `context.language`: the request's language, the mail's.
   */
  async register(input: RegistrationInput, links: AccountLinks, context: RegistrationContext = {}): Promise<void> {
    const { users, hasher, requireConfirmedEmail } = this.options;
    // Input errors (400) and a taken user name (409) are the caller's to know, and are decided
    // without the e-mail: the same for every address.
    users.validateNewUser(input);
    if (input.userName != null && (await users.isUserNameTaken(input.userName))) throw userNameTaken();
    const existing = await users.findByEmail(input.email);
    if (existing === null) {
      const created = await this.createAccount(input, links, context);
      if (created !== null) return;
      // Another registration of this address won a race: treat it as existing.
      return this.register(input, links, context);
    }
    // Hashed and thrown away: the time a new account takes to hash its password.
    await hasher.hash(input.password, context.clientKey);
    if (existing.emailConfirmed || !requireConfirmedEmail) {
      this.deliver(() => this.mails.registrationNotice(existing, context.language));
      return;
    }
    await this.sendConfirmation(existing, 'registered-again', links, context.language);
  }

  /**
   * A fresh confirmation link (older ones void) to an account whose address is not confirmed yet;
   * nothing for an unknown or confirmed address. The caller answers the same either way and does
   * not wait for this: the time taken would tell.
   */
  async resendConfirmation(email: string, links: AccountLinks, language?: string): Promise<void> {
    const user = await this.options.users.findByEmail(email);
    if (user === null || user.emailConfirmed) return;
    await this.sendConfirmation(user, 'new', links, language);
  }

  /**
   * An admin's resend to the user's unconfirmed address: a fresh link (older ones void) with the
   * `user.confirmation.resent` event naming the admin, in one transaction; the mail leaves once
   * both are committed. False, with nothing written, for an address confirmed already. The
   * self-service resend above writes no event: anyone may ask it for any address.
   */
  async resendConfirmationFor(user: User, links: AccountLinks, actor: Actor): Promise<boolean> {
    if (user.emailConfirmed) return false;
    const { audit, unitOfWork } = this.options;
    await unitOfWork.atomically(async () => {
      const code = await this.issueConfirmationCode(user);
      await audit.record('user.confirmation.resent', { userId: user.id, ip: actor.ip ?? null, detail: { by: actor.by } });
      unitOfWork.afterCommit(() => this.deliver(() => this.mails.confirmEmail(user, code, links)));
    });
    return true;
  }

  /** True when the code confirms (or already confirmed) this user's e-mail. */
  async confirmEmail(userId: number, code: unknown): Promise<boolean> {
    if (!Number.isSafeInteger(userId) || userId <= 0 || !isAccountCodeShape(code)) return false;
    const result = await this.options.codes.confirmEmail({ userId, codeHash: accountCodeHash(code), now: this.options.clock.now() });
    if (result !== 'confirmed') return false;
    const { onEmailConfirmed } = this.options;
    const user = onEmailConfirmed ? await this.options.users.findById(userId) : null;
    if (user !== null && onEmailConfirmed) await onEmailConfirmed(user);
    return true;
  }

  /** The new account, or null when the e-mail was taken meanwhile. */
  private async createAccount(input: RegistrationInput, links: AccountLinks, context: RegistrationContext): Promise<User | null> {
    try {
      // Confirmation is offered even when sign-in does not require it: the address is proven either way.
      const user = await this.options.users.create({ ...input, emailConfirmed: false }, context);
      await this.sendConfirmation(user, 'new', links, context.language);
      return user;
    } catch (error) {
      if (error instanceof GatehouseError && error.code === 'GH_CONFLICT' && isEmailConflict(error)) return null;
      throw error;
    }
  }

  /** A fresh confirmation link, voiding older ones; its mail says whether someone registered again. */
  private async sendConfirmation(user: User, account: 'new' | 'registered-again', links: AccountLinks, language: string | undefined): Promise<void> {
    const code = await this.issueConfirmationCode(user);
    this.deliver(() => (account === 'new' ? this.mails.confirmEmail(user, code, links, language) : this.mails.confirmEmailAgain(user, code, links, language)));
  }

  /** A fresh confirmation code for the user, stored hashed; older ones void. */
  private async issueConfirmationCode(user: User): Promise<string> {
    const { codes, clock, random } = this.options;
    const code = newAccountCode(random);
    const now = clock.now();
    await codes.issue({ userId: user.id, purpose: 'confirm-email', codeHash: accountCodeHash(code), createdAt: now, expiresAt: now + CONFIRMATION_CODE_MS });
    return code;
  }

  /** Composes and sends without making the request wait (the message holds a code: a failure is logged without it). */
  private deliver(message: () => MailMessage): void {
    void sendNotice(this.options.mailer, this.options.logger, message);
  }

  private get mails(): Mails {
    return this.options.mails ?? BUILT_IN_MAILS;
  }
}

/** The 409 of a taken user name, as `UserManager.create` answers it when a race takes the name. */
function userNameTaken(): GatehouseError {
  return new GatehouseError('GH_CONFLICT', (m) => m.errorUserNameTaken, { errors: { userName: [(m) => m.errorUserNameTakenField] } });
}

function isEmailConflict(error: GatehouseError): boolean {
  const errors = (error.extensions as { errors?: Record<string, unknown> }).errors;
  return errors !== undefined && 'email' in errors;
}
