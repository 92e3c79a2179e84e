import type { AuditLog } from '../audit/audit-log.ts';
import type { ListedSession, OwnSession, UserSessions } from '../identity/user-sessions.ts';
import type { UserSessionRef } from '../store/ports.ts';
import { type Actor, APPLICATION } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';

/**
 * "Where you are signed in": a user's cookie sessions and refresh-token families, listed and
 * ended by the user or by an admin. Each ending commits with the revocation events of what it
 * ended, is written to the audit trail, and is announced: its sockets close and its access
 * tokens are refused at once here and within seconds everywhere.
 */
export class SessionEnding {
  constructor(
    private readonly sessions: UserSessions,
    private readonly audit: AuditLog,
    private readonly rules: ChangeRules,
  ) {}

  /** The user's live sessions and families, the most recently used first; `own` marks the caller's cookie session `current`. */
  list(userId: number, own: OwnSession = {}): Promise<ListedSession[]> {
    return this.sessions.list(userId, own);
  }

  /** The owner ends one session or family, by its listed id: what it was, or null (unknown, another user's, ended). */
  async end(userId: number, id: string, actor: Actor): Promise<UserSessionRef | null> {
    const ended = await this.sessions.end(userId, id);
    if (ended === null) return null;
    await this.audit.record('session.revoked', { userId, ip: actor.ip ?? null, detail: { session: id, kind: ended.kind } });
    await this.rules.announceRevocation();
    return ended;
  }

  /** The owner ends every session and family but its own; how many ended. */
  async endOthers(userId: number, own: OwnSession, actor: Actor): Promise<number> {
    const count = await this.sessions.endOthers(userId, own);
    await this.audit.record('sessions.revoked', { userId, ip: actor.ip ?? null, detail: { count, kept: 'current' } });
    await this.rules.announceRevocation();
    return count;
  }

  /** Ends every session and family of the user (an admin's "sign out everywhere"; no lock); how many ended. */
  async endAll(userId: number, actor: Actor = APPLICATION): Promise<number> {
    const count = await this.sessions.endAll(userId);
    await this.audit.record('sessions.revoked', { userId, ip: actor.ip ?? null, detail: { count, by: actor.by } });
    await this.rules.announceRevocation();
    return count;
  }
}
