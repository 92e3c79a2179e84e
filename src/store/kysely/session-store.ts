import type { Selectable } from 'kysely';
import type { Session, SessionStore } from '../ports.ts';
import type { SessionsTable } from './database.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Cookie sessions. A session counts while `expires_at > now`; whether its user's security stamp
 * still matches is the session manager's check, made against the user it loads anyway.
 */
export class KyselySessionStore implements SessionStore {
  constructor(private readonly context: StoreContext) {}

  async create(session: Omit<Session, 'id'>): Promise<Session> {
    const row = await this.context.db
      .insertInto('sessions')
      .values({
        token_hash: session.tokenHash,
        user_id: session.userId,
        security_stamp: session.securityStamp,
        persistent: session.persistent ? 1 : 0,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSession(row);
  }

  async findByTokenHash(tokenHash: string, now: number): Promise<Session | null> {
    const row = await this.context.db
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? toSession(row) : null;
  }

  async slide(id: number, expiresAt: number): Promise<boolean> {
    const result = await this.context.db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', id).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async delete(tokenHash: string): Promise<boolean> {
    const result = await this.context.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async deleteUserSessions(userId: number, exceptId?: number): Promise<number> {
    let query = this.context.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async prune(before: number): Promise<number> {
    const result = await this.context.db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

// Ids are bigint in PostgreSQL; the pool parses int8 to number, Number() settles the type.
function toSession(row: Selectable<SessionsTable>): Session {
  return {
    id: Number(row.id),
    userId: row.user_id,
    tokenHash: row.token_hash,
    securityStamp: row.security_stamp,
    persistent: row.persistent === 1,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
