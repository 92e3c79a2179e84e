import { randomInt } from 'node:crypto';
import type { AuditLog } from '../../audit/audit-log.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Mailer } from '../../platform/mail/mailer.ts';
import type { SmsSender } from '../../platform/sms/sms-sender.ts';
import type { Sealer } from '../../security/crypto/sealer.ts';
import type { OneTimeCodePurpose, TwoFactorStore, UnitOfWork, User } from '../../store/ports.ts';
import { BUILT_IN_MAILS, type Mails } from '../account-mail.ts';
import type { AccountOperation, CredentialChecks } from '../credential-checks.ts';
import type { FailureContext } from '../lockout.ts';
import type { SecurityChanges, SelfServiceChange } from '../security-changes.ts';
import type { SignedInSession } from '../sessions.ts';
import type { CodeHasher } from './code-hashes.ts';
import { newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes.ts';
import { formatSharedKey, newAuthenticatorSecret, normalizeSixDigits, otpauthUri, totpStep } from './totp.ts';

/** The second factors of docs/reference/http.md: `provider` of `/account/login/2fa`. */
export type TwoFactorProvider = 'Authenticator' | 'Email' | 'Phone';

/** Codes sent by mail or SMS work once, for five minutes (docs/reference/membership.md). */
export const SENT_CODE_MS = 5 * 60 * 1000;
const ISSUER = 'Gatehouse';
const E164 = /^\+[1-9]\d{1,14}$/;

/** Why a two-factor change was refused; the HTTP ring answers 400 with the reason. */
export class TwoFactorError extends Error {
  constructor(readonly reason: 'code-required' | 'invalid-code' | 'invalid-phone-number' | 'no-pending-key' | 'phone-unavailable') {
    super(`Two-factor change refused: ${reason}.`);
    this.name = 'TwoFactorError';
  }
}

export interface AuthenticatorSetUp {
  readonly sharedKey: string;
  readonly otpauthUri: string;
  readonly qrSvg: string;
}

export interface TwoFactorManagerOptions {
  readonly store: TwoFactorStore;
  /** Seals authenticator keys at rest, as the key ring's secrets are. */
  readonly sealer: Sealer;
  readonly codes: CodeHasher;
  readonly audit: AuditLog;
  readonly mailer: Mailer;
  /** The sign-in code's mail, in the application's words, and the product's name for its SMS. @default the built-in ones */
  readonly mails?: Mails;
  /** Null when phone features are off (production without SMS_WEBHOOK_URL). */
  readonly sms: SmsSender | null;
  readonly clock: Clock;
  /** Every code of an account operation goes through here: counted when wrong, unchecked while locked. */
  readonly checks: CredentialChecks;
  /** Turning two-factor on or off ends every session and token of the user but the one that asked. */
  readonly securityChanges: SecurityChanges;
  /** Turning two-factor on or off commits with its audit event. */
  readonly unitOfWork: UnitOfWork;
}

/** Two-factor turned on: the recovery codes (shown once) and the asking session, re-issued. */
export interface TwoFactorEnabled {
  readonly recoveryCodes: string[];
  readonly session: SignedInSession | null;
}

const SENT_CODE_PURPOSE: Record<'Email' | 'Phone', OneTimeCodePurpose> = { Email: 'two-factor-email', Phone: 'two-factor-phone' };

/**
 * ASP.NET Identity's two-factor features: the authenticator (TOTP) with its set-up, recovery
 * codes, codes sent by mail or SMS, and phone numbers. Every code is checked here and used once.
 */
export class TwoFactorManager {
  constructor(private readonly options: TwoFactorManagerOptions) {}

  /** Whether text messages can be sent at all (phone features are off in production without SMS_WEBHOOK_URL). */
  get textMessagesAvailable(): boolean {
    return this.options.sms !== null;
  }

  /** Whether a sign-in code can be texted to `user`: a gateway is configured and the number confirmed. */
  canTextSignInCode(user: User): boolean {
    return this.options.sms !== null && user.phoneConfirmed && user.phoneNumber !== null;
  }

  /**
   * A new authenticator key, pending until `enable` confirms it with one of its codes. While
   * two-factor is on, only a current code of the key in use may replace it.
   */
  async setUpAuthenticator(user: User, code?: string, context: FailureContext = {}): Promise<AuthenticatorSetUp> {
    if (user.twoFactorEnabled) {
      if (code === undefined || code === '') throw new TwoFactorError('code-required');
      await this.prove(user, 'replace-authenticator', () => this.verifyAuthenticatorCode(user, code), context);
    }
    const secret = newAuthenticatorSecret();
    await this.options.store.setPendingKey(user.id, this.options.sealer.seal(secret));
    return this.describe(user, secret);
  }

  private async describe(user: User, secret: string): Promise<AuthenticatorSetUp> {
    const uri = otpauthUri(secret, user.email, ISSUER);
    return { sharedKey: formatSharedKey(secret), otpauthUri: uri, qrSvg: await (await import('qrcode')).default.toString(uri, { type: 'svg', margin: 1 }) };
  }

  /** The set-up page's key: the pending one when there is one, else a new one (two-factor off only). */
  async pendingSetUp(user: User): Promise<AuthenticatorSetUp> {
    const { pendingKey } = await this.options.store.authenticatorKeys(user.id);
    if (pendingKey === null) return this.setUpAuthenticator(user);
    return this.describe(user, this.options.sealer.unseal(pendingKey));
  }

  /**
   * Confirms the pending key with one of its codes and turns two-factor on, with ten recovery
   * codes: a security change (`twofactor.enabled`, announced; the asking session re-issued).
   */
  async enable(user: User, code: string, change: SelfServiceChange = {}): Promise<TwoFactorEnabled> {
    const { store, sealer, clock, securityChanges } = this.options;
    const asking = await securityChanges.askingSession(change);
    const { pendingKey } = await store.authenticatorKeys(user.id);
    if (pendingKey === null) throw new TwoFactorError('no-pending-key');
    const now = clock.now();
    const accepted: { step: number | null } = { step: null };
    await this.prove(user, 'enable-two-factor', async () => (accepted.step = totpStep(sealer.unseal(pendingKey), code, now)) !== null, { ip: change.ip ?? null });
    const { step } = accepted;
    if (step === null) throw new TwoFactorError('invalid-code');
    const recoveryCodes = newRecoveryCodes();
    const recoveryCodeHashes = recoveryCodes.map((c) => this.recoveryHash(c));
    const enabled = await this.options.unitOfWork.atomically(async () => {
      const done = await store.enable(user.id, { sealedKey: pendingKey, step, recoveryCodeHashes, now });
      if (done) await this.options.audit.record('twofactor.enabled', { userId: user.id });
      return done;
    });
    if (!enabled) throw new TwoFactorError('invalid-code');
    return { recoveryCodes, session: await securityChanges.committed(asking) };
  }

  /**
   * Turns two-factor off with a current authenticator code or a recovery code (for a lost
   * device): a security change (`twofactor.disabled`, announced); the asking session re-issued.
   */
  async disable(user: User, code: string, change: SelfServiceChange = {}): Promise<SignedInSession | null> {
    const { securityChanges } = this.options;
    const asking = await securityChanges.askingSession(change);
    if (!user.twoFactorEnabled) throw new TwoFactorError('invalid-code');
    const either = async () => (await this.verifyAuthenticatorCode(user, code)) || (await this.redeemRecoveryCode(user, code));
    await this.prove(user, 'disable-two-factor', either, { ip: change.ip ?? null });
    await this.options.unitOfWork.atomically(async () => {
      if (await this.options.store.disable(user.id, this.options.clock.now())) {
        await this.options.audit.record('twofactor.disabled', { userId: user.id });
      }
    });
    return securityChanges.committed(asking);
  }

  /** Ten new recovery codes for a current authenticator code; the old ones stop working. */
  async regenerateRecoveryCodes(user: User, code: string, context: FailureContext = {}): Promise<string[]> {
    if (!user.twoFactorEnabled) throw new TwoFactorError('invalid-code');
    await this.prove(user, 'regenerate-recovery-codes', () => this.verifyAuthenticatorCode(user, code), context);
    const recoveryCodes = newRecoveryCodes();
    await this.options.store.replaceRecoveryCodes(user.id, recoveryCodes.map((c) => this.recoveryHash(c)));
    return recoveryCodes;
  }

  /** A code of the key in use, within one step of now, of a step not accepted before. */
  async verifyAuthenticatorCode(user: User, code: string): Promise<boolean> {
    const { activeKey } = await this.options.store.authenticatorKeys(user.id);
    if (activeKey === null) return false;
    const step = totpStep(this.options.sealer.unseal(activeKey), code, this.options.clock.now());
    return step !== null && (await this.options.store.acceptStep(user.id, step));
  }

  async redeemRecoveryCode(user: User, code: string): Promise<boolean> {
    const normalized = normalizeRecoveryCode(code);
    if (normalized === null) return false;
    return this.options.store.redeemRecoveryCode(user.id, this.recoveryHash(normalized), this.options.clock.now());
  }

  countRecoveryCodes(user: User): Promise<number> {
    return this.options.store.countRecoveryCodes(user.id);
  }

  /** Sends a sign-in code by mail or text message (in the user's language, else `language`, the request's); false when there is no way to send it. */
  async sendSignInCode(user: User, provider: 'Email' | 'Phone', language?: string): Promise<boolean> {
    if (provider === 'Phone' && !this.canTextSignInCode(user)) return false;
    const code = await this.issue(user, SENT_CODE_PURPOSE[provider], provider === 'Phone' ? user.phoneNumber : null);
    const { mails = BUILT_IN_MAILS } = this.options;
    if (provider === 'Email') await this.options.mailer.send(mails.signInCode(user, code, language));
    else await this.sendSms(user.phoneNumber as string, mails.signInCodeText(user, code, language));
    return true;
  }

  /** A code of `provider`: the authenticator's, or one sent by mail or SMS (used once). */
  async verifySignInCode(user: User, provider: TwoFactorProvider, code: string): Promise<boolean> {
    if (provider === 'Authenticator') return this.verifyAuthenticatorCode(user, code);
    if (provider === 'Phone' && !user.phoneConfirmed) return false;
    return (await this.useCode(user, SENT_CODE_PURPOSE[provider], code)) !== undefined;
  }

  /** Stores the number unconfirmed and texts it a code that confirms it (in the user's language, else `language`, the request's). */
  async setPhoneNumber(user: User, phoneNumber: string, language?: string): Promise<void> {
    if (!E164.test(phoneNumber)) throw new TwoFactorError('invalid-phone-number');
    if (this.options.sms === null) throw new TwoFactorError('phone-unavailable');
    await this.options.store.setPhoneNumber(user.id, phoneNumber);
    const code = await this.issue(user, 'confirm-phone', phoneNumber);
    const { mails = BUILT_IN_MAILS } = this.options;
    await this.sendSms(phoneNumber, mails.phoneConfirmationText(user, code, language));
  }

  /** Removes the number: no code is texted to it any more. */
  async removePhoneNumber(user: User): Promise<void> {
    await this.options.store.setPhoneNumber(user.id, null);
  }

  async confirmPhoneNumber(user: User, code: string, context: FailureContext = {}): Promise<void> {
    const sent: { phoneNumber: string | null } = { phoneNumber: null };
    await this.prove(user, 'confirm-phone', async () => (sent.phoneNumber = (await this.useCode(user, 'confirm-phone', code))?.phoneNumber ?? null) !== null, context);
    const { phoneNumber } = sent;
    if (phoneNumber === null || !(await this.options.store.confirmPhoneNumber(user.id, phoneNumber))) {
      throw new TwoFactorError('invalid-code');
    }
  }

  /** A code of an account operation, checked on the account's failure counter; a wrong one is `invalid-code`. */
  private async prove(user: User, operation: AccountOperation, check: () => Promise<boolean>, context: FailureContext): Promise<void> {
    if (!(await this.options.checks.verify(user, operation, 'code', check, context))) throw new TwoFactorError('invalid-code');
  }

  private async issue(user: User, purpose: OneTimeCodePurpose, phoneNumber: string | null): Promise<string> {
    const code = String(randomInt(1_000_000)).padStart(6, '0');
    const now = this.options.clock.now();
    await this.options.store.issueCode({
      userId: user.id,
      purpose,
      codeHash: this.options.codes.hash(purpose, code),
      phoneNumber,
      createdAt: now,
      expiresAt: now + SENT_CODE_MS,
    });
    return code;
  }

  private async useCode(user: User, purpose: OneTimeCodePurpose, code: string): Promise<{ phoneNumber: string | null } | undefined> {
    const digits = normalizeSixDigits(code);
    if (digits === null) return undefined;
    return this.options.store.useCode({ userId: user.id, purpose, codeHash: this.options.codes.hash(purpose, digits), now: this.options.clock.now() });
  }

  private sendSms(to: string, text: string): Promise<void> {
    if (this.options.sms === null) throw new TwoFactorError('phone-unavailable');
    return this.options.sms.send({ to, text });
  }

  private recoveryHash(code: string): string {
    return this.options.codes.hash('recovery', normalizeRecoveryCode(code) as string);
  }
}
