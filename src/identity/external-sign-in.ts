import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import { type ExternalLoginStore, StoreConflictError, type User, type UserStore } from '../store/ports.ts';
import { isValidEmail, normalizeEmail } from './normalize.ts';

/** What a provider asserted about the user, from its validated ID token and user info. */
export interface ExternalIdentity {
  readonly provider: string;
  readonly subject: string;
  readonly email?: string | undefined;
  readonly emailVerified?: boolean | undefined;
  readonly name?: string | undefined;
}

export type ExternalSignInOutcome =
  | { readonly kind: 'signed-in'; readonly user: User; readonly how: 'existing' | 'linked' | 'created' }
  | { readonly kind: 'refused'; readonly reason: 'email-not-verified' | 'email-taken' | 'no-email' };

export interface ExternalSignInOptions {
  readonly logins: ExternalLoginStore;
  readonly users: UserStore;
  readonly audit: AuditLog;
  readonly clock: Clock;
  /** Providers whose verified e-mails may link to an existing confirmed account (`OIDC_<NAME>_TRUST_EMAIL`). */
  readonly trustsEmail: (provider: string) => boolean;
}

/**
 * Who an external sign-in is (docs/reference/http.md): the user linked to (provider, subject) first;
 * otherwise an existing confirmed account with the same e-mail, only when the provider is trusted
 * for e-mail and asserts it verified; otherwise a new user, only when the provider asserts a
 * verified e-mail that no account has; otherwise refused (the person signs in and links from the
 * profile). Never an unconfirmed account: whoever registered it has not proven the address.
 */
export class ExternalSignIn {
  constructor(private readonly options: ExternalSignInOptions) {}

  async resolve(identity: ExternalIdentity, context: { ip?: string | null } = {}): Promise<ExternalSignInOutcome> {
    const { logins, users } = this.options;
    const linked = await logins.find(identity.provider, identity.subject);
    if (linked !== null) {
      const user = await users.findById(linked.userId);
      if (user !== null) return { kind: 'signed-in', user, how: 'existing' };
    }
    if (identity.email === undefined || !isValidEmail(identity.email)) return this.refuse(identity, 'no-email', context);
    if (identity.emailVerified !== true) return this.refuse(identity, 'email-not-verified', context);
    const existing = await users.findByNormalizedEmail(normalizeEmail(identity.email));
    if (existing !== null) {
      if (!this.options.trustsEmail(identity.provider) || !existing.emailConfirmed) return this.refuse(identity, 'email-taken', context);
      return this.link(existing, identity, context);
    }
    return this.create(identity, context);
  }

  /** A signed-in user links a provider from the profile; false when that login belongs to someone else or the user has one there. */
  async link(user: User, identity: ExternalIdentity, context: { ip?: string | null } = {}): Promise<ExternalSignInOutcome> {
    try {
      await this.options.logins.add({ userId: user.id, provider: identity.provider, subject: identity.subject, createdAt: this.options.clock.now() });
    } catch (error) {
      if (error instanceof StoreConflictError) return this.refuse(identity, 'email-taken', context);
      throw error;
    }
    await this.options.audit.record('external.linked', { userId: user.id, ip: context.ip, detail: { provider: identity.provider } });
    return { kind: 'signed-in', user, how: 'linked' };
  }

  private async create(identity: ExternalIdentity, context: { ip?: string | null }): Promise<ExternalSignInOutcome> {
    const email = identity.email as string;
    const now = this.options.clock.now();
    try {
      const user = await this.options.logins.createUserWithLogin(
        { email, normalizedEmail: normalizeEmail(email), userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: now },
        { provider: identity.provider, subject: identity.subject, createdAt: now },
      );
      await this.options.audit.record('external.linked', { userId: user.id, ip: context.ip, detail: { provider: identity.provider, created: true } });
      return { kind: 'signed-in', user, how: 'created' };
    } catch (error) {
      // Registered or linked by someone else a moment ago.
      if (error instanceof StoreConflictError) return this.refuse(identity, 'email-taken', context);
      throw error;
    }
  }

  private async refuse(identity: ExternalIdentity, reason: Extract<ExternalSignInOutcome, { kind: 'refused' }>['reason'], context: { ip?: string | null }): Promise<ExternalSignInOutcome> {
    await this.options.audit.record('external.refused', { ip: context.ip, detail: { provider: identity.provider, reason } });
    return { kind: 'refused', reason };
  }
}
