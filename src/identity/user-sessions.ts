import type { Clock } from '../platform/clock.ts';
import type { OpaqueIds } from '../security/crypto/opaque-ids.ts';
import type { SignInMethod, UserSession, UserSessionKind, UserSessionRef, UserSessionStore } from '../store/ports.ts';

/** The caller's own session, which "sign out everywhere else" keeps: its cookie session, or the family of its access token. */
export interface OwnSession {
  readonly sessionId?: number | null;
  readonly familyId?: number | null;
}

/** One place a user is signed in, as the user sees it. */
export interface ListedSession {
  /** Opaque: one space for both kinds (`SessionIds`). */
  readonly id: string;
  readonly kind: UserSessionKind;
  /** The cookie session of the request that asked (never a family: docs/reference/http.md). */
  readonly current: boolean;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly expiresAt: number;
  readonly userAgent: string | null;
  readonly ip: string | null;
  readonly method: SignInMethod | null;
}

const KIND_TAG: Readonly<Record<UserSessionKind, number>> = { cookie: 1, token: 2 };

/**
 * The ids the sessions list hands out: one space for cookie sessions and families, and nothing
 * in them tells how many sessions were ever opened (`OpaqueIds`), as a row id would. An id that
 * does not open is simply unknown.
 */
export class SessionIds {
  constructor(private readonly ids: OpaqueIds) {}

  format(ref: UserSessionRef): string {
    return this.ids.format({ tag: KIND_TAG[ref.kind], id: ref.id });
  }

  parse(id: string): UserSessionRef | null {
    const opened = this.ids.parse(id);
    if (opened === null) return null;
    if (opened.tag === KIND_TAG.cookie) return { kind: 'cookie', id: opened.id };
    if (opened.tag === KIND_TAG.token) return { kind: 'token', id: opened.id };
    return null;
  }
}

/**
 * "Where you are signed in" (docs/reference/http.md): a user's cookie sessions and refresh-token
 * families, listed and ended by the user or by an admin. Ending commits with the revocation
 * events that close the sessions' sockets and refuse the families' access tokens everywhere;
 * callers then announce the change (`RevocationFeed.changed`) so that it is seen at once.
 */
export class UserSessions {
  constructor(
    private readonly store: UserSessionStore,
    private readonly clock: Clock,
    /** How the list names sessions. */
    readonly ids: SessionIds,
  ) {}

  /** The user's live sessions and families, the most recently used first. */
  async list(userId: number, own: OwnSession = {}): Promise<ListedSession[]> {
    const sessions = await this.store.list(userId, this.clock.now());
    return sessions.map((session) => listed(session, this.ids.format(session), own));
  }

  /** Ends the session or family of `id` if it is the user's and live: what it was, or null (unknown, another user's, ended). */
  async end(userId: number, id: string): Promise<UserSessionRef | null> {
    const ref = this.ids.parse(id);
    if (ref === null) return null;
    return (await this.store.end(userId, ref, this.clock.now())) ? ref : null;
  }

  /** Ends every session and family of the user but the caller's own; how many ended. */
  endOthers(userId: number, own: OwnSession): Promise<number> {
    const keep: UserSessionRef[] = [];
    if (own.sessionId != null) keep.push({ kind: 'cookie', id: own.sessionId });
    if (own.familyId != null) keep.push({ kind: 'token', id: own.familyId });
    return this.store.endAll(userId, this.clock.now(), keep);
  }

  /** Ends every session and family of the user (an admin's "sign out everywhere"); how many ended. */
  endAll(userId: number): Promise<number> {
    return this.store.endAll(userId, this.clock.now());
  }
}

function listed(session: UserSession, id: string, own: OwnSession): ListedSession {
  const { kind, createdAt, lastSeenAt, expiresAt, userAgent, ip, method } = session;
  const current = kind === 'cookie' && own.sessionId != null && session.id === own.sessionId;
  return { id, kind, current, createdAt, lastSeenAt, expiresAt, userAgent, ip, method };
}
