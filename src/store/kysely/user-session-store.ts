import type { Kysely } from 'kysely';
import type { SignInMethod, UserSession, UserSessionRef, UserSessionStore } from '../ports.ts';
import type { Database } from './database.ts';
import { revokeFamilies, toFamily } from './refresh-token-store.ts';
import { appendRevocations } from './revocation-store.ts';
import { toSession } from './session-store.ts';
import type { StoreContext } from './store-context.ts';

/**
 * A user's cookie sessions and refresh families, as "where you are signed in" lists and ends
 * them (docs/reference/http.md). Ending deletes cookie sessions (a `session` event naming the user:
 * their sockets re-read them) and revokes families (a `family` event each: their access tokens
 * and token sockets are refused), the events in the transaction of the change.
 */
export class KyselyUserSessionStore implements UserSessionStore {
  constructor(private readonly context: StoreContext) {}

  async list(userId: number, now: number): Promise<UserSession[]> {
    const { db } = this.context;
    const [sessions, families] = await Promise.all([
      db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('expires_at', '>', now).execute(),
      db
        .selectFrom('refresh_families')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .execute(),
    ]);
    const listed: UserSession[] = [
      ...sessions.map(toSession).map((session) => ({ kind: 'cookie' as const, ...pick(session), tokenHash: session.tokenHash })),
      ...families.map(toFamily).map((family) => ({ kind: 'token' as const, ...pick(family), tokenHash: null })),
    ];
    // Most recently used first; the newest sign-in first among equals, cookies before tokens.
    return listed.sort((a, b) => b.lastSeenAt - a.lastSeenAt || b.createdAt - a.createdAt || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) || b.id - a.id);
  }

  async end(userId: number, session: UserSessionRef, now: number): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      if (session.kind === 'token') return (await revokeFamilies(trx, { ids: [session.id], userId }, now, this.context.clock.now())).length > 0;
      const ended = await trx
        .deleteFrom('sessions')
        .where('id', '=', session.id)
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (ended.numDeletedRows === 0n) return false;
      await this.sessionsEnded(trx, userId);
      return true;
    });
  }

  async endAll(userId: number, now: number, keep: readonly UserSessionRef[] = []): Promise<number> {
    const kept = (kind: UserSessionRef['kind']) => keep.filter((ref) => ref.kind === kind).map((ref) => ref.id);
    return this.context.transaction(async (trx) => {
      let query = trx.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '>', now);
      const keptSessions = kept('cookie');
      if (keptSessions.length > 0) query = query.where('id', 'not in', keptSessions);
      const sessions = Number((await query.executeTakeFirst()).numDeletedRows);
      if (sessions > 0) await this.sessionsEnded(trx, userId);
      const families = await revokeFamilies(trx, { userId, except: kept('token') }, now, this.context.clock.now());
      return sessions + families.length;
    });
  }

  private async sessionsEnded(trx: Kysely<Database>, userId: number): Promise<void> {
    await appendRevocations(trx, [{ kind: 'session', subject: String(userId), at: this.context.clock.now() }]);
  }
}

/** What both kinds tell alike. */
function pick(record: {
  id: number;
  userId: number;
  method: SignInMethod | null;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  userAgent: string | null;
  ip: string | null;
}): Omit<UserSession, 'kind' | 'tokenHash'> {
  const { id, userId, method, createdAt, lastSeenAt, expiresAt, userAgent, ip } = record;
  return { id, userId, method, createdAt, lastSeenAt, expiresAt, userAgent, ip };
}
