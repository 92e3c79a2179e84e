import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { SignInClient, SignInMethod, User, UserStore } from '../store/ports.ts';
import type { RefreshTokens } from '../tokens/refresh-tokens.ts';
import type { ExternalLogins, LoginToLink } from './external-logins.ts';
import { HashingBusyError } from './hashing-busy.ts';
import type { AccountLockout } from './lockout.ts';
import type { PasskeyCredentialJSON, PasskeyManager, PasskeyRefusal } from './passkeys.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { SessionManager } from './sessions.ts';
import { SignInResult } from './sign-in-result.ts';
import type { TwoFactorManager, TwoFactorProvider } from './two-factor/two-factor-manager.ts';
import type { UserManager } from './user-manager.ts';

export interface SignInContext {
  readonly ip?: string | null;
  /**
   * Who is signing in, as an opaque key (the HTTP layer gives the client's address, an IPv6
   * client's /64): the hashing queue serves clients in turns and refuses a flooding one first.
   */
  readonly clientKey?: string;
  /** This browser carries a valid remember-client cookie of the user: the second step is skipped. */
  readonly rememberedClient?: (user: User) => boolean;
  /** What a completed sign-in opens (on the result); nothing when not told. */
  readonly grant?: SignInGrant;
  /** The language the request states (`Accept-Language`), remembered as the user's for their mails; none when it states none. */
  readonly language?: string;
}

/**
 * What a completed sign-in opens for the transport to hand over: a cookie session (the one the
 * browser held before ends: no fixation), or an access token with the first refresh token of a
 * new family. `method` is how the session or family records the sign-in.
 */
export type SignInGrant =
  | { readonly kind: 'session'; readonly persistent: boolean; readonly method: SignInMethod; readonly client: SignInClient; readonly replacing: string | null }
  | {
      readonly kind: 'tokens';
      readonly method: SignInMethod;
      readonly client: SignInClient;
      /** The organization to issue them for (null: none); absent, the one the user chose last. */
      readonly organizationId?: number | null;
    };

/** Who passed the first step, as the short-lived two-factor cookie carries it. */
export interface TwoFactorPending {
  readonly userId: number;
  /** The user's security stamp at the first step: a security change since voids the pending sign-in. */
  readonly securityStamp: number;
  /**
   * When the first step was passed (epoch ms), for a pending sign-in that the client holds and
   * could present again (the two-factor cookie): a completed second step spends it, so that a
   * captured cookie does not work twice. Absent when both steps come in one request (`/auth/token`).
   */
  readonly startedAt?: number;
}

/**
 * Whether a pending sign-in may still take its second step: two-factor is on, no security change
 * happened since the first step, and no completed second step spent it (nor a later one).
 */
export function isLivePending(pending: TwoFactorPending, user: User): boolean {
  if (user.securityStamp !== pending.securityStamp || !user.twoFactorEnabled) return false;
  const spentThrough = user.twoFactorSpentThrough;
  return pending.startedAt === undefined || spentThrough === null || pending.startedAt > spentThrough;
}

/** The second factor presented: a code of a provider, or a recovery code. */
export type SecondFactor = { readonly provider: TwoFactorProvider; readonly code: string } | { readonly provider: 'Recovery'; readonly code: string };

export interface SignInManagerOptions {
  readonly users: UserManager;
  /** The failure counter and its lockout live in the store, shared by every instance. */
  readonly userStore: UserStore;
  readonly hasher: PasswordHasher;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly requireConfirmedEmail: boolean;
  readonly twoFactor: TwoFactorManager;
  /** The one failure counter, shared with the checks of account operations. */
  readonly lockout: AccountLockout;
  /** Passkeys, when they are on (`WEBAUTHN_RP_ID` names a host). */
  readonly passkeys?: PasskeyManager | null;
  /** Links the provider's login a first step matched by e-mail, once the second step passes. */
  readonly externalLogins?: ExternalLogins;
  /** Opens the cookie sessions that sign-ins are granted. */
  readonly sessions?: Pick<SessionManager, 'signIn'>;
  /** Issues the token pairs that sign-ins are granted. */
  readonly refreshTokens?: Pick<RefreshTokens, 'issue'>;
}

/** The second step's context: besides the sign-in's, a provider's login to link when it succeeds. */
export interface SecondStepContext extends SignInContext {
  /** Matched by e-mail at an external first step: linked only now that both steps passed. */
  readonly link?: LoginToLink | undefined;
}

/** The step of a sign-in a result answers: the first factor (a password or a passkey) or the second. */
export type SignInStep = 'password' | 'passkey' | 'second_factor';

type FailureReason =
  | 'unknown-user'
  | 'locked-out'
  | 'wrong-password'
  | 'email-not-confirmed'
  | 'wrong-code'
  | 'stale-two-factor'
  | 'spent-two-factor'
  | PasskeyRefusal;

/**
 * Password sign-in as one explicit sequence: find the user, verify the password (a dummy hash
 * for unknown users), refuse locked accounts with the generic failure, count a wrong password
 * toward lockout, then the e-mail rule, then the second factor when the user has it on; only a
 * completed sign-in (both factors) resets the count. A guesser learns nothing but "no" (docs/reference/http.md); every wrong code of the second step counts on the same counter
 * (docs/reference/membership.md). A check the hashing queue refuses (`HashingBusyError`) ends the
 * sign-in with that error before anything is counted or recorded: no password was checked.
 */
export class SignInManager {
  private readonly listeners = new Set<(step: SignInStep, result: SignInResult) => void>();

  constructor(private readonly options: SignInManagerOptions) {}

  /** Calls `listener` with every result this manager answers, by step (metrics count them); returns the way to stop. */
  onAnswered(listener: (step: SignInStep, result: SignInResult) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async passwordSignIn(login: string, password: string, context: SignInContext = {}): Promise<SignInResult> {
    return this.answered('password', await this.granted(await this.checkPassword(login, password, context), context));
  }

  private async checkPassword(login: string, password: string, context: SignInContext): Promise<SignInResult> {
    const { users, hasher } = this.options;
    const user = await users.findByLogin(login);
    if (!user) {
      await hasher.verifyDummy(password, context.clientKey);
      return this.failed(null, 'unknown-user', context);
    }
    const passwordMatches = await hasher.verify(user.passwordHash, password, context.clientKey);
    // Locked: the same answer for any password, and no further counting.
    if (users.isLockedOut(user)) return this.failed(user.id, 'locked-out', context);
    if (!passwordMatches) {
      await this.options.lockout.accessFailed(user, context);
      return this.failed(user.id, 'wrong-password', context);
    }
    if (this.options.requireConfirmedEmail && !user.emailConfirmed) {
      await this.record('signin.failed', user.id, context, 'email-not-confirmed');
      return SignInResult.notAllowed;
    }
    await this.upgradeHash(user, password, context.clientKey);
    if (user.twoFactorEnabled && !context.rememberedClient?.(user)) return SignInResult.twoFactorRequired(user);
    return this.complete(user, context, 'password');
  }

  /**
   * Sign-in with a passkey (docs/passkeys.md), by the password's rules: a refused assertion of a
   * known passkey counts toward lockout; a locked account gets the generic failure whatever the
   * passkey; `isNotAllowed` only after a valid passkey. With user verification (UV) the passkey is
   * both factors; without it, one, and a user with two-factor on takes the second step.
   */
  async passkeySignIn(challenge: string, response: PasskeyCredentialJSON, context: SignInContext = {}): Promise<SignInResult> {
    return this.answered('passkey', await this.granted(await this.checkPasskey(challenge, response, context), context));
  }

  private async checkPasskey(challenge: string, response: PasskeyCredentialJSON, context: SignInContext): Promise<SignInResult> {
    const { users, passkeys } = this.options;
    if (!passkeys) throw new Error('SignInManager: passkey sign-in needs the `passkeys` option.');
    const assertion = await passkeys.verifyAssertion(challenge, response, context);
    const user = assertion.passkey === null ? null : await users.findById(assertion.passkey.userId);
    if (user === null) return this.failed(null, 'unknown-passkey', context);
    if (users.isLockedOut(user)) return this.failed(user.id, 'locked-out', context);
    if (assertion.kind === 'refused') {
      await this.options.lockout.accessFailed(user, context);
      return this.failed(user.id, assertion.reason, context);
    }
    if (this.options.requireConfirmedEmail && !user.emailConfirmed) {
      await this.record('signin.failed', user.id, context, 'email-not-confirmed');
      return SignInResult.notAllowed;
    }
    if (!assertion.userVerified && user.twoFactorEnabled && !context.rememberedClient?.(user)) return SignInResult.twoFactorRequired(user);
    return this.complete(user, context, 'passkey');
  }

  /**
   * A password that verified against an older hash (imported from ASP.NET, or weaker Argon2id
   * parameters than the configured ones) is hashed again with today's. Not a security change:
   * the password is the same. A failure here is logged and the sign-in goes on; a full hashing
   * queue only puts it off to a later sign-in, since the extra hash would lengthen the queue.
   */
  private async upgradeHash(user: User, password: string, client: string | undefined): Promise<void> {
    const { hasher, userStore, logger } = this.options;
    if (user.passwordHash === null || !hasher.needsRehash(user.passwordHash)) return;
    try {
      await userStore.upgradePasswordHash(user.id, user.passwordHash, await hasher.hash(password, client));
    } catch (error) {
      if (error instanceof HashingBusyError) logger.debug({ userId: user.id }, 'password hash upgrade put off: the hashing queue is full');
      else logger.warn({ err: error, userId: user.id }, 'could not upgrade a password hash');
    }
  }

  /**
   * The second step for whoever passed the first (`pending`). A locked account says so here
   * (`isLockedOut`), since the password was right; a wrong code counts toward lockout. A
   * provider's login the first step matched by e-mail (`context.link`) is linked once it succeeds.
   */
  async twoFactorSignIn(pending: TwoFactorPending, factor: SecondFactor, context: SecondStepContext = {}): Promise<SignInResult> {
    const result = await this.checkSecondFactor(pending, factor, context);
    if (result.succeeded && context.link !== undefined) await this.linkAfterSecondStep(result.user, context.link, context);
    return this.answered('second_factor', await this.granted(result, context));
  }

  /** A completed sign-in opens what it was granted: a cookie session or a token pair. */
  private async granted(result: SignInResult, { grant }: SignInContext): Promise<SignInResult> {
    if (!result.succeeded || grant === undefined) return result;
    const { sessions, refreshTokens } = this.options;
    const { user } = result;
    if (grant.kind === 'session') {
      if (!sessions) throw new Error('SignInManager: a session grant needs the `sessions` option.');
      const { persistent, method, client, replacing } = grant;
      return { ...result, session: await sessions.signIn(user, { persistent, method, client, replacing }) };
    }
    if (!refreshTokens) throw new Error('SignInManager: a token grant needs the `refreshTokens` option.');
    const { method, client, organizationId } = grant;
    return { ...result, tokens: await refreshTokens.issue(user, { method, client, ...(organizationId === undefined ? {} : { organizationId }) }) };
  }

  private async linkAfterSecondStep(user: User, link: LoginToLink, context: SignInContext): Promise<void> {
    const { externalLogins } = this.options;
    if (!externalLogins) throw new Error('SignInManager: linking after the second step needs the `externalLogins` option.');
    // Taken meanwhile by another account: the sign-in stands, the login stays unlinked.
    await externalLogins.link(user, link, { ip: context.ip, how: 'email' });
  }

  private answered(step: SignInStep, result: SignInResult): SignInResult {
    for (const listener of this.listeners) listener(step, result);
    return result;
  }

  private async checkSecondFactor(pending: TwoFactorPending, factor: SecondFactor, context: SignInContext): Promise<SignInResult> {
    const user = await this.options.users.findById(pending.userId);
    if (!user || !isLivePending(pending, user)) return this.failed(user?.id ?? null, 'stale-two-factor', context);
    if (this.options.users.isLockedOut(user)) {
      await this.record('signin.failed', user.id, context, 'locked-out');
      return SignInResult.lockedOut;
    }
    if (!(await this.verifySecondFactor(user, factor))) {
      const locked = await this.options.lockout.accessFailed(user, context);
      await this.record('signin.failed', user.id, context, 'wrong-code');
      return locked ? SignInResult.lockedOut : SignInResult.failed;
    }
    // Spent only by a right code, so that a typo does not cost the first step; checked again here
    // because concurrent second steps with one cookie all passed the look above.
    if (pending.startedAt !== undefined && !(await this.options.userStore.spendTwoFactorStep(user.id, pending.startedAt))) {
      return this.failed(user.id, 'spent-two-factor', context);
    }
    return this.complete(user, context, factor.provider);
  }

  private verifySecondFactor(user: User, factor: SecondFactor): Promise<boolean> {
    const { twoFactor } = this.options;
    if (factor.provider === 'Recovery') return twoFactor.redeemRecoveryCode(user, factor.code);
    return twoFactor.verifySignInCode(user, factor.provider, factor.code);
  }

  private async complete(user: User, context: SignInContext, factor: string): Promise<SignInResult> {
    // A lockout committed by concurrent failures while this password or code was checked still wins.
    if (!(await this.options.userStore.completeSignIn(user.id, this.options.clock.now()))) {
      return this.failed(user.id, 'locked-out', context);
    }
    await this.options.audit.record('signin.succeeded', { userId: user.id, ip: context.ip, detail: { factor } });
    // Written only when it changed: most sign-ins stay reads.
    if (context.language !== undefined && context.language !== user.language) await this.options.userStore.rememberLanguage(user.id, context.language);
    return SignInResult.success(user);
  }

  private async failed(userId: number | null, reason: FailureReason, context: SignInContext): Promise<SignInResult> {
    await this.record('signin.failed', userId, context, reason);
    return SignInResult.failed;
  }

  private record(type: 'signin.failed', userId: number | null, context: Pick<SignInContext, 'ip'>, reason: FailureReason): Promise<void> {
    return this.options.audit.record(type, { userId, ip: context.ip, detail: { reason } });
  }
}
