import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import { type ExternalLoginStore, StoreConflictError, type User, type UserStore } from '../store/ports.ts';
import type { LoginToLink } from './external-logins.ts';
import { isNfkcStable, isValidEmail, normalizeEmail, sameEmail } from './normalize.ts';

/** What a provider asserted about the user, from its validated ID token and user info. */
export interface ExternalIdentity {
  readonly provider: string;
  readonly subject: string;
  readonly email?: string | undefined;
  readonly emailVerified?: boolean | undefined;
  readonly name?: string | undefined;
}

export type ExternalRefusal = 'email-not-verified' | 'email-taken' | 'email-not-exact' | 'no-email';

/**
 * Who an external sign-in is. `link-by-email` names an existing account and the login to link to
 * it, not yet linked: the caller links (`ExternalLogins.link`) only once the sign-in completes,
 * after the lockout check and the second factor.
 */
export type ExternalSignInOutcome =
  | { readonly kind: 'existing'; readonly user: User }
  | { readonly kind: 'link-by-email'; readonly user: User; readonly login: LoginToLink }
  | { readonly kind: 'created'; readonly user: User }
  | { readonly kind: 'refused'; readonly reason: ExternalRefusal };

export interface ExternalSignInOptions {
  readonly logins: ExternalLoginStore;
  readonly users: UserStore;
  readonly audit: AuditLog;
  readonly clock: Clock;
  /** Providers whose verified e-mails may link to an existing confirmed account (`OIDC_<NAME>_TRUST_EMAIL`). */
  readonly trustsEmail: (provider: string) => boolean;
}

/**
 * Who an external sign-in is (docs/external-login.md): the user linked to (provider, subject)
 * first; otherwise an existing confirmed account with the same e-mail, only when the provider is
 * trusted for e-mail, asserts it verified, and both addresses are exact (`sameEmail`); otherwise a
 * new user, only when the provider asserts a verified e-mail, in NFKC form, that no account has; otherwise
 * refused (the person signs in and links from the profile). Never an unconfirmed account:
 * whoever registered it has not proven the address. Refusals are the caller's to record.
 */
export class ExternalSignIn {
  constructor(private readonly options: ExternalSignInOptions) {}

  async resolve(identity: ExternalIdentity, context: { ip?: string | null } = {}): Promise<ExternalSignInOutcome> {
    const { logins, users } = this.options;
    const linked = await logins.find(identity.provider, identity.subject);
    if (linked !== null) {
      const user = await users.findById(linked.userId);
      if (user !== null) return { kind: 'existing', user };
    }
    if (identity.email === undefined || !isValidEmail(identity.email)) return refused('no-email');
    if (identity.emailVerified !== true) return refused('email-not-verified');
    // A look-alike address names no account, old or new: a new one would hold the plain
    // address's normalised form, which its real owner could then never register.
    if (!isNfkcStable(identity.email)) return refused('email-not-exact');
    const existing = await users.findByNormalizedEmail(normalizeEmail(identity.email));
    if (existing !== null) return this.linkByEmail(existing, identity, identity.email);
    return this.create(identity, identity.email, context);
  }

  /** The existing account with the provider's address, when the rule lets the provider sign in to it. */
  private async linkByEmail(existing: User, identity: ExternalIdentity, email: string): Promise<ExternalSignInOutcome> {
    if (!this.options.trustsEmail(identity.provider) || !existing.emailConfirmed) return refused('email-taken');
    if (!sameEmail(email, existing.email)) return refused('email-not-exact');
    // One login per provider: a second one of the same provider is linked from the profile, if at all.
    const current = await this.options.logins.listForUser(existing.id);
    if (current.some((login) => login.provider === identity.provider)) return refused('email-taken');
    return { kind: 'link-by-email', user: existing, login: { provider: identity.provider, subject: identity.subject } };
  }

  private async create(identity: ExternalIdentity, email: string, context: { ip?: string | null }): Promise<ExternalSignInOutcome> {
    const now = this.options.clock.now();
    try {
      const user = await this.options.logins.createUserWithLogin(
        { email, normalizedEmail: normalizeEmail(email), userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: now },
        { provider: identity.provider, subject: identity.subject, createdAt: now },
      );
      await this.options.audit.record('external.linked', { userId: user.id, ip: context.ip, detail: { provider: identity.provider, created: true } });
      return { kind: 'created', user };
    } catch (error) {
      // Registered or linked by someone else a moment ago.
      if (error instanceof StoreConflictError) return refused('email-taken');
      throw error;
    }
  }
}

function refused(reason: ExternalRefusal): ExternalSignInOutcome {
  return { kind: 'refused', reason };
}
