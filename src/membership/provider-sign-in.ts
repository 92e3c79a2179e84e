import type { AuditLog } from '../audit/audit-log.ts';
import type { ExternalLogins, LoginToLink } from '../identity/external-logins.ts';
import type { ExternalIdentity, ExternalRefusal, ExternalSignIn } from '../identity/external-sign-in.ts';
import { isLockedOutAt } from '../identity/lockout.ts';
import type { PresentedSession, SessionManager, SignedInSession } from '../identity/sessions.ts';
import type { Clock } from '../platform/clock.ts';
import { type ExternalLoginStore, externalMethod, type SignInClient, type User, type UserStore } from '../store/ports.ts';

export interface ProviderSignInOptions {
  /** Who the provider's user is, by the linking rule. */
  readonly resolver: ExternalSignIn;
  readonly externalLogins: ExternalLogins;
  readonly sessions: Pick<SessionManager, 'signIn' | 'asking'>;
  readonly logins: Pick<ExternalLoginStore, 'spendCorrelation'>;
  readonly users: Pick<UserStore, 'findById' | 'rememberLanguage'>;
  readonly audit: AuditLog;
  readonly clock: Clock;
}

/** Why a provider's sign-in or link was refused, besides the linking rule's reasons. */
export type ProviderRefusal = ExternalRefusal | 'locked-out' | 'link-without-session' | 'link-taken';

/** How a provider's sign-in ends: refused (recorded), waiting for the second factor, or signed in. */
export type ProviderSignInOutcome =
  | { readonly kind: 'refused'; readonly reason: ProviderRefusal }
  /** The account has two-factor on: the second step opens the session (and links `link`, matched by e-mail). */
  | { readonly kind: 'two-factor'; readonly user: User; readonly link: LoginToLink | undefined }
  | { readonly kind: 'signed-in'; readonly user: User; readonly session: SignedInSession };

/** Where the browser of a provider's callback stands. */
export interface CallbackContext {
  readonly ip: string | null;
  readonly client: SignInClient;
  /** This browser carries a valid remember-client cookie of the user: the second step is skipped. */
  readonly rememberedClient: (user: User) => boolean;
  /** The cookie session the browser holds: a sign-in replaces it, a link must come from it. */
  readonly session: PresentedSession | null;
  /** The language the browser states, remembered as the user's for their mails (as a password sign-in does); none when it states none. */
  readonly language?: string;
}

/**
 * Sign-in with an OpenID provider, from its validated callback on (docs/external-login.md): the
 * user by the linking rule, refused for a locked account, the second step when the user has it
 * on, the login matched by e-mail linked only when the sign-in completes, then a new session and
 * `signin.succeeded`. Every refusal writes one `external.refused` (its reason a fixed code) and
 * opens no session. The flow's cookies and its exchange with the provider are the transport's.
 */
export class ProviderSignIn {
  constructor(private readonly options: ProviderSignInOptions) {}

  /** A flow refused before it reached a user (no correlation, a provider's error, a rejected answer): recorded. */
  async refuse(provider: string, reason: string, ip: string | null): Promise<void> {
    await this.options.audit.record('external.refused', { ip, detail: { provider, reason } });
  }

  /** Marks the flow (by an id derived from its state) as used; false for a replayed callback. */
  spendFlow(id: string, expiresAt: number): Promise<boolean> {
    return this.options.logins.spendCorrelation(id, expiresAt);
  }

  /** The provider signs the browser in: see the class. */
  async signIn(identity: ExternalIdentity, context: CallbackContext): Promise<ProviderSignInOutcome> {
    const { resolver, clock } = this.options;
    const outcome = await resolver.resolve(identity, { ip: context.ip });
    if (outcome.kind === 'refused') return this.refused(identity.provider, outcome.reason, context.ip);
    const { user } = outcome;
    // A login matched by e-mail is linked only once the sign-in completes: not for a locked
    // account, and after the second factor when the user has it on.
    if (user.lockedByAdmin || isLockedOutAt(user, clock.now())) return this.refused(identity.provider, 'locked-out', context.ip);
    const link = outcome.kind === 'link-by-email' ? outcome.login : undefined;
    if (user.twoFactorEnabled && !context.rememberedClient(user)) return { kind: 'two-factor', user, link };
    if (link !== undefined && !(await this.options.externalLogins.link(user, link, { ip: context.ip, how: 'email' }))) {
      return this.refused(identity.provider, 'email-taken', context.ip);
    }
    const method = externalMethod(identity.provider);
    const session = await this.options.sessions.signIn(user, { persistent: false, method, client: context.client, replacing: context.session?.token ?? null });
    await this.options.audit.record('signin.succeeded', { userId: user.id, ip: context.ip, detail: { factor: method } });
    if (context.language !== undefined && context.language !== user.language) await this.options.users.rememberLanguage(user.id, context.language);
    return { kind: 'signed-in', user, session };
  }

  /**
   * Links the provider's login to `userId`, who asked from the profile: only from the browser
   * still signed in as that user, and only a login nobody else holds.
   */
  async linkToAccount(userId: number, identity: ExternalIdentity, context: Pick<CallbackContext, 'ip' | 'session'>): Promise<'linked' | 'link-without-session' | 'link-taken'> {
    const asking = await this.options.sessions.asking(context.session);
    if (asking?.userId !== userId) {
      await this.refuse(identity.provider, 'link-without-session', context.ip);
      return 'link-without-session';
    }
    const user = await this.options.users.findById(userId);
    const linked = user !== null && (await this.options.externalLogins.link(user, identity, { ip: context.ip, how: 'profile' }));
    if (!linked) {
      await this.refuse(identity.provider, 'link-taken', context.ip);
      return 'link-taken';
    }
    return 'linked';
  }

  private async refused(provider: string, reason: ProviderRefusal, ip: string | null): Promise<ProviderSignInOutcome & { kind: 'refused' }> {
    await this.refuse(provider, reason, ip);
    return { kind: 'refused', reason };
  }
}
