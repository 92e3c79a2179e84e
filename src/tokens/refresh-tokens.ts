import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { Random } from '../platform/random.ts';
import { sha256Hex } from '../security/crypto/digest.ts';
import { Sealer } from '../security/crypto/sealer.ts';
import type { ActiveOrganization, ActiveOrganizations } from '../organizations/active-organization.ts';
import type { RefreshFamily, RefreshTokenStore, SignInClient, SignInMethod, User, UserStore } from '../store/ports.ts';
import type { AccessTokens } from './access-token.ts';

/** What a client holds after a sign-in or a refresh. */
export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Seconds. */
  readonly expiresIn: number;
  /** When the refresh token's family ends, epoch ms (the refresh cookie's expiry). */
  readonly refreshExpiresAt: number;
}

export type RefreshResult = { readonly ok: true; readonly pair: TokenPair } | { readonly ok: false };

export interface RefreshTokenOptions {
  readonly store: RefreshTokenStore;
  readonly users: UserStore;
  readonly accessTokens: AccessTokens;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly random: Random;
  /** Lifetime of a family, fixed at its first issue. */
  readonly familySeconds: number;
  /** A benign repeat of the immediate predecessor within this many seconds gets the same pair. */
  readonly graceSeconds: number;
  /** The key ring's secret for sealing successor pairs during the grace window. */
  readonly graceSecret: string;
  /**
   * Once a family has ended (revoked, or for a replayed token): its access tokens are refused here
   * at once and on every other instance when told (the revocation feed's `changed`).
   */
  readonly announceRevocation: () => Promise<void>;
  /** The active organization of each family's access tokens; without it no token carries one. */
  readonly organizations?: ActiveOrganizations;
}

/** 256 random bits, base64url: opaque, stored only as SHA-256. */
const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Refresh-token families (RFC 9700 §4.14.2): every use rotates; exactly one of concurrent uses
 * wins; any other use of a rotated token is reuse and ends the whole family, the winner's new
 * token included, except a repeat of the immediate predecessor within the grace window, which
 * gets the very same successor pair back.
 */
export class RefreshTokens {
  private readonly graceSealer: Sealer;

  constructor(private readonly options: RefreshTokenOptions) {
    this.graceSealer = new Sealer(options.graceSecret);
  }

  /**
   * A new family for a user who just signed in, by `method`, from `client`. Its access tokens
   * name it, so that ending the family refuses them. They are issued for `organizationId` (the
   * user's choice, remembered; `GH_NOT_A_MEMBER` when the user is not a member), else for the
   * organization the user chose last.
   */
  async issue(
    user: User,
    { method = null, client, organizationId }: { method?: SignInMethod | null; client?: SignInClient; organizationId?: number | null } = {},
  ): Promise<TokenPair> {
    const { store, clock, familySeconds, organizations } = this.options;
    const chosen = organizations ? await organizations.forNewCredential(user, organizationId) : undefined;
    const refreshToken = this.newToken();
    const now = clock.now();
    const { family } = await store.createFamily({
      organizationId: chosen?.id ?? null,
      userId: user.id,
      securityStamp: user.securityStamp,
      tokenHash: sha256Hex(refreshToken),
      createdAt: now,
      expiresAt: now + familySeconds * 1000,
      method,
      ...(client ? { client } : {}),
    });
    const { token, expiresIn } = await this.options.accessTokens.issue(user, { familyId: family.id, authTime: family.createdAt, organization: chosen });
    return { accessToken: token, refreshToken, expiresIn, refreshExpiresAt: family.expiresAt };
  }

  /**
   * A refresh is a use of the family: its last use becomes now, from `context`'s client. With
   * `organizationId` the family switches to that organization (the user's choice, remembered;
   * `GH_NOT_A_MEMBER`, and nothing rotated, when the user is not a member); without it the
   * family keeps its own.
   */
  async refresh(presented: string, context: { ip?: string | null; client?: SignInClient; organizationId?: number | null } = {}): Promise<RefreshResult> {
    if (!TOKEN_PATTERN.test(presented)) return FAILED;
    const { store, users, clock, graceSeconds } = this.options;
    const tokenHash = sha256Hex(presented);
    const found = await store.find(tokenHash);
    if (!found) return FAILED;
    const user = await users.findById(found.family.userId);
    if (!user || user.lockedByAdmin || user.securityStamp !== found.family.securityStamp) {
      // The family began before a security change (or its user is gone): it is over.
      await store.revokeFamily(found.family.id, clock.now());
      return FAILED;
    }
    const organization = await this.organizationOf(found.family, context.organizationId);
    const next = this.newToken();
    // The family's start is the sign-in: a refresh keeps it (it proves possession of a token, not who holds it).
    const { token: accessToken, expiresIn } = await this.options.accessTokens.issue(user, { familyId: found.family.id, authTime: found.family.createdAt, organization });
    const pair: TokenPair = { accessToken, refreshToken: next, expiresIn, refreshExpiresAt: found.family.expiresAt };
    const now = clock.now();
    const grace = graceSeconds > 0 ? { sealed: this.graceSealer.seal(JSON.stringify(pair)), until: now + graceSeconds * 1000 } : null;
    const outcome = await store.rotate({ tokenHash, nextHash: sha256Hex(next), now, grace, ...(context.client ? { client: context.client } : {}) });
    switch (outcome.kind) {
      case 'rotated':
        return { ok: true, pair };
      case 'reused': {
        const { token, successorUnused, family } = outcome;
        if (successorUnused && token.graceSealed !== null && token.graceUntil !== null && now <= token.graceUntil) {
          return { ok: true, pair: JSON.parse(this.graceSealer.unseal(token.graceSealed)) as TokenPair };
        }
        await store.revokeFamily(family.id, now);
        await this.options.audit.record('refresh.reuse', { userId: family.userId, ip: context.ip, detail: { family: family.id } });
        await this.options.announceRevocation();
        return FAILED;
      }
      default:
        return FAILED;
    }
  }

  /** Ends the family of `presented` and announces it; unknown tokens are ignored (RFC 7009). */
  async revoke(presented: string): Promise<void> {
    if (!TOKEN_PATTERN.test(presented)) return;
    const found = await this.options.store.find(sha256Hex(presented));
    if (found === null) return;
    await this.options.store.revokeFamily(found.family.id, this.options.clock.now());
    await this.options.announceRevocation();
  }

  /** The organization a refresh issues for: the one asked for (switching the family to it), else the family's. */
  private async organizationOf(family: RefreshFamily, asked: number | null | undefined): Promise<ActiveOrganization | null | undefined> {
    const { organizations } = this.options;
    if (!organizations) return undefined;
    if (asked === undefined) return organizations.current(family.userId, family.organizationId);
    return organizations.switchFamily(family, asked);
  }

  private newToken(): string {
    return this.options.random.bytes(TOKEN_BYTES).toString('base64url');
  }
}

const FAILED: RefreshResult = Object.freeze({ ok: false });
