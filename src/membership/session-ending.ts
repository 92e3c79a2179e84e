import type { AuditLog } from '../audit/audit-log.ts';
import type { ListedSession, OwnSession, UserSessions } from '../identity/user-sessions.ts';
import type { UnitOfWork, UserSessionRef } from '../store/ports.ts';
import { type Actor, APPLICATION } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';

/**
 * "Where you are signed in": a user's cookie sessions and refresh-token families, listed and
 * ended by the user or by an admin. Each ending commits in one transaction with the revocation
 * events of what it ended and its audit event, and is then announced: its sockets close and its access
 * tokens are refused at once here and within seconds everywhere.
 */
export class SessionEnding {
  constructor(
    private readonly sessions: UserSessions,
    private readonly audit: AuditLog,
    private readonly rules: ChangeRules,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The user's live sessions and families, the most recently used first; `own` marks the caller's cookie session `current`. */
  list(userId: number, own: OwnSession = {}): Promise<ListedSession[]> {
    return this.sessions.list(userId, own);
  }

  /** The owner ends one session or family, by its listed id: what it was, or null (unknown, another user's, ended). */
  async end(userId: number, id: string, actor: Actor): Promise<UserSessionRef | null> {
    const ended = await this.unitOfWork.atomically(async () => {
      const ref = await this.sessions.end(userId, id);
      if (ref !== null) await this.audit.record('session.revoked', { userId, ip: actor.ip ?? null, detail: { session: id, kind: ref.kind } });
      return ref;
    });
    if (ended === null) return null;
    await this.rules.announceRevocation();
    return ended;
  }

  /** The owner ends every session and family but its own; how many ended. */
  async endOthers(userId: number, own: OwnSession, actor: Actor): Promise<number> {
    const count = await this.unitOfWork.atomically(async () => {
      const ended = await this.sessions.endOthers(userId, own);
      await this.audit.record('sessions.revoked', { userId, ip: actor.ip ?? null, detail: { count: ended, kept: 'current' } });
      return ended;
    });
    await this.rules.announceRevocation();
    return count;
  }

  /** Ends every session and family of the user (an admin's "sign out everywhere"; no lock); how many ended. */
  async endAll(userId: number, actor: Actor = APPLICATION): Promise<number> {
    const count = await this.unitOfWork.atomically(async () => {
      const ended = await this.sessions.endAll(userId);
      await this.audit.record('sessions.revoked', { userId, ip: actor.ip ?? null, detail: { count: ended, by: actor.by } });
      return ended;
    });
    await this.rules.announceRevocation();
    return count;
  }
}
