import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import type { Mailer, MailMessage } from '../platform/mail/mailer.ts';
import type { Random } from '../platform/random.ts';
import { GatehouseError } from '../security/errors.ts';
import type { AccountCodeStore, User } from '../store/ports.ts';
import { accountCodeHash, CONFIRMATION_CODE_MS, isAccountCodeShape, newAccountCode } from './account-codes.ts';
import { confirmationMail, registrationNoticeMail } from './account-mail.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { UserManager } from './user-manager.ts';

export interface RegistrationOptions {
  readonly users: UserManager;
  readonly hasher: PasswordHasher;
  readonly codes: AccountCodeStore;
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  readonly publicUrl: URL;
  readonly requireConfirmedEmail: boolean;
}

export interface RegistrationInput {
  readonly email: string;
  readonly password: string;
  readonly userName?: string | null;
}

/**
 * Registration and e-mail confirmation (SPEC section 4). The answer is the same whether or not the
 * address is taken; only the mail differs, and it goes only to the stored address:
 *   - a new address gets an account and a confirmation link (also when sign-in does not require
 *     confirmation: the address is then unconfirmed but usable);
 *   - an unconfirmed account gets a new link whose code holds the new password, applied only when
 *     that link is used (so a stranger cannot change the owner's password), voiding older links;
 *   - a confirmed account (or any, when confirmation is not required) gets a notice and keeps
 *     its password.
 * Every path hashes the password once, so the time taken does not tell them apart either; mail
 * leaves in the background for the same reason.
 */
export class Registration {
  constructor(private readonly options: RegistrationOptions) {}

  async register(input: RegistrationInput): Promise<void> {
    const { users, hasher, requireConfirmedEmail } = this.options;
    // Input errors (400) and a taken user name (409) are the caller's to know.
    users.validateNewUser(input);
    const existing = await users.findByEmail(input.email);
    if (existing === null) {
      const created = await this.createAccount(input);
      if (created !== null) return;
      // Another registration of this address won a race: treat it as existing.
      return this.register(input);
    }
    const passwordHash = await hasher.hash(input.password);
    if (existing.emailConfirmed || !requireConfirmedEmail) {
      this.deliver(registrationNoticeMail(existing));
      return;
    }
    await this.sendConfirmation(existing, passwordHash);
  }

  /** True when the code confirms (or already confirmed) this user's e-mail. */
  async confirmEmail(userId: number, code: unknown): Promise<boolean> {
    if (!Number.isSafeInteger(userId) || userId <= 0 || !isAccountCodeShape(code)) return false;
    const result = await this.options.codes.confirmEmail({ userId, codeHash: accountCodeHash(code), now: this.options.clock.now() });
    return result === 'confirmed';
  }

  /** The new account, or null when the e-mail was taken meanwhile. */
  private async createAccount(input: RegistrationInput): Promise<User | null> {
    try {
      // Confirmation is offered even when sign-in does not require it: the address is proven either way.
      const user = await this.options.users.create({ ...input, emailConfirmed: false });
      await this.sendConfirmation(user, null);
      return user;
    } catch (error) {
      if (error instanceof GatehouseError && error.code === 'GH_CONFLICT' && isEmailConflict(error)) return null;
      throw error;
    }
  }

  private async sendConfirmation(user: User, pendingPasswordHash: string | null): Promise<void> {
    const { codes, clock, random, publicUrl } = this.options;
    const code = newAccountCode(random);
    const now = clock.now();
    await codes.issue({
      userId: user.id,
      purpose: 'confirm-email',
      codeHash: accountCodeHash(code),
      pendingPasswordHash,
      createdAt: now,
      expiresAt: now + CONFIRMATION_CODE_MS,
    });
    this.deliver(confirmationMail(user, code, publicUrl));
  }

  /** Sends without making the request wait; a failure is logged without the message (it holds a code). */
  private deliver(message: MailMessage): void {
    this.options.mailer.send(message).catch((error: unknown) => {
      this.options.logger.error({ err: error, subject: message.subject }, 'could not send a mail');
    });
  }
}

function isEmailConflict(error: GatehouseError): boolean {
  const errors = (error.extensions as { errors?: Record<string, unknown> }).errors;
  return errors !== undefined && 'email' in errors;
}
