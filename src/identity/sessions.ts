import type { Clock } from '../platform/clock.ts';
import { GatehouseError } from '../security/errors.ts';
import type { Random } from '../platform/random.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import type { CookieSessionValidation, CookieSessionValidator } from '../security/authentication/index.ts';
import { COOKIES_SCHEME } from '../security/authentication/index.ts';
import { sha256Hex } from '../security/crypto/digest.ts';
import type { SessionStore, SignInClient, SignInMethod, User, UserStore } from '../store/ports.ts';
import type { ActiveOrganizations } from '../organizations/active-organization.ts';
import { userPrincipal } from '../tokens/access-token.ts';
import { signInClient, UNKNOWN_CLIENT } from './sign-in-client.ts';

/** However often a session slides, it ends this long after its sign-in. @default 30 days */
export const ABSOLUTE_SESSION_MS = 30 * 24 * 3_600_000;
/** Session tokens carry 256 random bits. */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/**
 * A session's last use is written at most this often: "where you are signed in" is as exact as
 * a minute, and a busy browser does not turn each of its requests into a write.
 */
export const LAST_USE_INTERVAL_MS = 60_000;

export interface SessionManagerOptions {
  readonly sessions: SessionStore;
  readonly users: UserStore;
  readonly revocations: RevocationList;
  readonly clock: Clock;
  readonly random: Random;
  /** `COOKIE_HOURS`: how long a session lives after its last renewal (ASP.NET's `ExpireTimeSpan`). */
  readonly lifetimeMs: number;
  /** The active organization's membership, read into each principal; without it no session carries one. */
  readonly organizations?: ActiveOrganizations;
}

/**
 * A cookie session's validation, with the session's id and user, how it was opened and when the user
 * signed in (epoch ms; the sign-in a re-issued session continues) when it counts.
 */
export type SessionValidation =
  | (Extract<CookieSessionValidation, { valid: true }> & {
      readonly sessionId: number;
      readonly userId: number;
      readonly method: SignInMethod | null;
      readonly signedInAt: number;
    })
  | Exclude<CookieSessionValidation, { valid: true }>;

/** The cookie session a request presented: its token, and where the request came from. */
export interface PresentedSession {
  readonly token: string;
  readonly client: SignInClient;
}

/**
 * The session that asks for a security change, read before the change ends it: the re-issue
 * that follows continues it (its user, persistence, method and sign-in time) under the new stamp.
 */
export interface AskingSession extends PresentedSession {
  readonly userId: number;
  readonly persistent: boolean;
  readonly method: SignInMethod | null;
  readonly signedInAt: number;
}

export interface SignedInSession {
  /** The token for the cookie; only its hash is stored. */
  readonly token: string;
  readonly expiresAt: number;
  readonly persistent: boolean;
}

/**
 * Cookie sessions in the store (docs/reference/http.md and docs/reference/tokens.md). A session counts while it has not
 * expired and its user still exists, is not locked by an admin, and has the security stamp the
 * session began with; every check reads the store, so sign-out, deletion, an admin lock and a
 * password change end it on every instance at once. Expiry slides as ASP.NET's does: once more
 * than half the lifetime has passed, a use moves it a whole lifetime on (one write per half
 * lifetime, not one per request), never past `ABSOLUTE_SESSION_MS` after the sign-in.
 */
export class SessionManager implements CookieSessionValidator {
  constructor(private readonly options: SessionManagerOptions) {}

  /**
   * `method` is how the user signed in; `client` is where from. A session re-issued after a
   * self-service security change continues its predecessor's sign-in: it keeps `method` and
   * `signedInAt` (its creation time, which the sessions list shows, the absolute lifetime counts
   * from, and the recent-sign-in rule reads), so a re-issue proves nothing new and lives no longer.
   */
  async signIn(
    user: User,
    {
      persistent,
      method,
      client = UNKNOWN_CLIENT,
      signedInAt,
      replacing = null,
    }: {
      persistent: boolean;
      method: SignInMethod | null;
      client?: SignInClient;
      signedInAt?: number;
      /** The token of the session the browser held before: it ends (no fixation). */
      replacing?: string | null;
    },
  ): Promise<SignedInSession> {
    const { sessions, clock, random } = this.options;
    if (replacing !== null) await this.signOut(replacing);
    const token = random.bytes(TOKEN_BYTES).toString('base64url');
    const now = clock.now();
    const createdAt = signedInAt === undefined ? now : Math.min(signedInAt, now);
    const session = await sessions.create({
      client: signInClient(client.ip ?? undefined, client.userAgent ?? undefined),
      userId: user.id,
      tokenHash: sha256Hex(token),
      securityStamp: user.securityStamp,
      persistent,
      method,
      // A new sign-in starts in the organization the user chose last.
      organizationId: this.options.organizations ? user.activeOrganizationId : null,
      createdAt,
      expiresAt: this.expiryFrom(createdAt, now),
    });
    return { token, expiresAt: session.expiresAt, persistent };
  }

  /**
   * The session a request presented, as a security change it asks for must know it beforehand
   * (a use, like any request's); null for none, or one that no longer counts.
   */
  async asking(presented: PresentedSession | null): Promise<AskingSession | null> {
    if (presented === null) return null;
    const session = await this.validate(presented.token);
    if (!session.valid) return null;
    const { userId, persistent, method, signedInAt } = session;
    return { ...presented, userId, persistent, method, signedInAt };
  }

  /**
   * After a self-service security change: the session that asked goes on under the user's new
   * security stamp, as a new session (no fixation) continuing its sign-in. A re-issue is no
   * sign-in: it renews no recent-sign-in proof and lives no longer.
   */
  async reissue(asking: AskingSession): Promise<SignedInSession> {
    const user = await this.options.users.findById(asking.userId);
    if (user === null) throw GatehouseError.notFound((m) => m.errorAccountGone);
    const { persistent, method, signedInAt, client, token } = asking;
    return this.signIn(user, { persistent, method, client, signedInAt, replacing: token });
  }

  /** Ends the session (idempotent): its cookie no longer works on any instance. */
  async signOut(token: string): Promise<void> {
    if (TOKEN_SHAPE.test(token)) await this.options.sessions.delete(sha256Hex(token));
  }

  /**
   * The session behind a cookie, for a request from `client`: a use, which slides the expiry and
   * records the use when each is due.
   */
  validate(token: string, client?: SignInClient): Promise<SessionValidation> {
    // The user agent as sent, cut to the length a session keeps. Without a client (a route
    // re-reading its own session) the use counts but the recorded client stays.
    return this.read(token, true, client ? signInClient(client.ip ?? undefined, client.userAgent ?? undefined) : undefined);
  }

  /**
   * The session behind a cookie as it is now, without counting as a use: an open socket re-reads
   * its session (its end, its user's claims) but does not keep it alive; only requests slide it.
   */
  current(token: string): Promise<SessionValidation> {
    return this.read(token, false);
  }

  /** A view of the sessions that never slides them, as a `CookieSessionValidator`. */
  withoutRenewal(): CookieSessionValidator {
    return { validate: (token) => this.current(token) };
  }

  /** `use`: a request uses the session (from `client`, when told); false for a look that is no use. */
  private async read(token: string, use: boolean, client?: SignInClient): Promise<SessionValidation> {
    if (!TOKEN_SHAPE.test(token)) return INVALID;
    const { sessions, users, revocations, clock } = this.options;
    const now = clock.now();
    const session = await sessions.findByTokenHash(sha256Hex(token), now);
    if (session === null) return INVALID;
    const user = await users.findById(session.userId);
    const ended =
      user === null ||
      user.lockedByAdmin ||
      user.securityStamp !== session.securityStamp ||
      revocations.refusesSecurityStamp(user.id, session.securityStamp);
    if (ended) {
      await sessions.delete(session.tokenHash);
      return INVALID;
    }
    let { expiresAt } = session;
    const slidTo = use && this.dueForRenewal(expiresAt, now) ? this.expiryFrom(session.createdAt, now) : expiresAt;
    // Near the absolute end the expiry cannot move any more: nothing to write or re-send.
    const renewed = slidTo > expiresAt;
    if (renewed) expiresAt = slidTo;
    // One write for both, when either is due; most requests write nothing.
    if (use && (renewed || now - session.lastSeenAt >= LAST_USE_INTERVAL_MS)) {
      await sessions.recordUse(session.id, { at: now, ...(client ? { client } : {}), ...(renewed ? { expiresAt } : {}) });
    }
    const { persistent, method, createdAt: signedInAt } = session;
    const { organizations } = this.options;
    const organization = organizations ? await organizations.current(user.id, session.organizationId) : undefined;
    return { valid: true, principal: userPrincipal(user, COOKIES_SCHEME, organization), expiresAt, persistent, renewed, sessionId: session.id, userId: session.userId, method, signedInAt };
  }

  /** More than half of the lifetime has passed since the expiry was last set. */
  private dueForRenewal(expiresAt: number, now: number): boolean {
    return expiresAt - now < this.options.lifetimeMs / 2;
  }

  private expiryFrom(signedInAt: number, now: number): number {
    return Math.min(now + this.options.lifetimeMs, signedInAt + ABSOLUTE_SESSION_MS);
  }
}

const INVALID: SessionValidation = Object.freeze({ valid: false });
