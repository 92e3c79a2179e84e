import type { Insertable, Kysely, Selectable } from 'kysely';
import type { NewSession, Session, SessionStore, SessionUse, SignInMethod } from '../ports.ts';
import type { Database, SessionsTable } from './database.ts';
import { ReusableQuery } from './reusable-query.ts';
import { appendRevocations } from './revocation-store.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Cookie sessions. A session counts while `expires_at > now`; whether its user's security stamp
 * still matches is the session manager's check, made against the user it loads anyway. Ending
 * sessions appends a `session` event naming their user to the revocation feed, in the same
 * transaction: the sockets the sessions opened, on any instance, learn of it (docs/reference/graphql.md).
 */
export class KyselySessionStore implements SessionStore {
  // Compiled once: every sign-in creates a session and every cookie request finds one.
  private readonly insert = new ReusableQuery((db: Kysely<Database>, p: Omit<Insertable<SessionsTable>, 'id'>) =>
    db
      .insertInto('sessions')
      .values({
        token_hash: p.token_hash,
        user_id: p.user_id,
        security_stamp: p.security_stamp,
        persistent: p.persistent,
        method: p.method,
        created_at: p.created_at,
        expires_at: p.expires_at,
        last_seen_at: p.last_seen_at,
        user_agent: p.user_agent,
        ip: p.ip,
        organization_id: p.organization_id,
      })
      .returningAll(),
  );
  private readonly live = new ReusableQuery((db: Kysely<Database>, p: { tokenHash: string; now: number }) =>
    db.selectFrom('sessions').selectAll().where('token_hash', '=', p.tokenHash).where('expires_at', '>', p.now),
  );

  constructor(private readonly context: StoreContext) {}

  async create(session: NewSession): Promise<Session> {
    const row = await this.insert.first(this.context.db, {
      token_hash: session.tokenHash,
      user_id: session.userId,
      security_stamp: session.securityStamp,
      persistent: session.persistent ? 1 : 0,
      method: session.method,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      last_seen_at: session.createdAt,
      user_agent: session.client?.userAgent ?? null,
      ip: session.client?.ip ?? null,
      organization_id: session.organizationId ?? null,
    });
    if (row === undefined) throw new Error('The new session was not returned by its insert.');
    return toSession(row);
  }

  async findByTokenHash(tokenHash: string, now: number): Promise<Session | null> {
    const row = await this.live.first(this.context.db, { tokenHash, now });
    return row ? toSession(row) : null;
  }

  async slide(id: number, expiresAt: number): Promise<boolean> {
    const result = await this.context.db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', id).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async recordUse(id: number, use: SessionUse): Promise<boolean> {
    const result = await this.context.db
      .updateTable('sessions')
      .set({
        last_seen_at: use.at,
        ...(use.client === undefined ? {} : { user_agent: use.client.userAgent, ip: use.client.ip }),
        ...(use.expiresAt === undefined ? {} : { expires_at: use.expiresAt }),
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async delete(tokenHash: string): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      const ended = await trx.deleteFrom('sessions').where('token_hash', '=', tokenHash).returning('user_id').executeTakeFirst();
      if (ended === undefined) return false;
      await appendRevocations(trx, [{ kind: 'session', subject: String(ended.user_id), at: this.context.clock.now() }]);
      return true;
    });
  }

  async deleteUserSessions(userId: number, exceptId?: number): Promise<number> {
    return this.context.transaction(async (trx) => {
      let query = trx.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
      const result = await query.executeTakeFirst();
      const count = Number(result.numDeletedRows);
      if (count > 0) await appendRevocations(trx, [{ kind: 'session', subject: String(userId), at: this.context.clock.now() }]);
      return count;
    });
  }

  async deleteUserSessionsByMethod(userId: number, method: SignInMethod): Promise<number> {
    return this.context.transaction(async (trx) => {
      const result = await trx.deleteFrom('sessions').where('user_id', '=', userId).where('method', '=', method).executeTakeFirst();
      const count = Number(result.numDeletedRows);
      if (count > 0) await appendRevocations(trx, [{ kind: 'session', subject: String(userId), at: this.context.clock.now() }]);
      return count;
    });
  }

  async prune(before: number): Promise<number> {
    const result = await this.context.db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

// Ids are bigint in PostgreSQL; the pool parses int8 to number, Number() settles the type.
export function toSession(row: Selectable<SessionsTable>): Session {
  return {
    id: Number(row.id),
    userId: row.user_id,
    tokenHash: row.token_hash,
    securityStamp: row.security_stamp,
    persistent: row.persistent === 1,
    method: row.method as SignInMethod | null,
    organizationId: row.organization_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastSeenAt: Number(row.last_seen_at ?? row.created_at),
    userAgent: row.user_agent,
    ip: row.ip,
  };
}
