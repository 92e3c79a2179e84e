import type { Selectable } from 'kysely';
import type { ExternalLogin, ExternalLoginStore, NewUser, User } from '../ports.ts';
import type { ExternalLoginsTable } from './database.ts';
import type { StoreContext } from './store-context.ts';
import { countPasskeys, lockUser } from './passkey-store.ts';
import { insertUser } from './user-store.ts';

export class KyselyExternalLoginStore implements ExternalLoginStore {
  constructor(private readonly context: StoreContext) {}

  async find(provider: string, subject: string): Promise<ExternalLogin | null> {
    const row = await this.context.db
      .selectFrom('external_logins')
      .selectAll()
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row ? toLogin(row) : null;
  }

  async listForUser(userId: number): Promise<ExternalLogin[]> {
    const rows = await this.context.db.selectFrom('external_logins').selectAll().where('user_id', '=', userId).orderBy('provider').execute();
    return rows.map(toLogin);
  }

  async add(login: ExternalLogin): Promise<void> {
    await this.context.db
      .insertInto('external_logins')
      .values({ user_id: login.userId, provider: login.provider, subject: login.subject, created_at: login.createdAt })
      .execute();
  }

  async remove(userId: number, provider: string): Promise<boolean> {
    const result = await this.context.db.deleteFrom('external_logins').where('user_id', '=', userId).where('provider', '=', provider).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async removeUnlessLastWayIn(userId: number, provider: string): Promise<'removed' | 'not-linked' | 'last-way-in'> {
    return this.context.transaction(async (trx) => {
      // Concurrent removals of the user's logins queue here: under READ COMMITTED each would
      // otherwise count the other's login as still there. SQLite's transaction holds the write
      // lock from its start (BEGIN IMMEDIATE) and has no row locks to take.
      const user = await lockUser(trx, this.context.engine, userId);
      if (user === undefined) return 'not-linked';
      const logins = await trx.selectFrom('external_logins').select('provider').where('user_id', '=', userId).execute();
      if (!logins.some((login) => login.provider === provider)) return 'not-linked';
      // A passkey is a way in as good as a password.
      if (user.password_hash === null && logins.length === 1 && (await countPasskeys(trx, userId)) === 0) return 'last-way-in';
      await trx.deleteFrom('external_logins').where('user_id', '=', userId).where('provider', '=', provider).execute();
      return 'removed';
    });
  }

  async createUserWithLogin(user: NewUser, login: Omit<ExternalLogin, 'userId'>): Promise<User> {
    return this.context.transaction(async (trx) => {
      const created = await insertUser(trx, user);
      await trx
        .insertInto('external_logins')
        .values({ user_id: created.id, provider: login.provider, subject: login.subject, created_at: login.createdAt })
        .execute();
      return created;
    });
  }

  async spendCorrelation(id: string, expiresAt: number): Promise<boolean> {
    const result = await this.context.db
      .insertInto('spent_external_correlations')
      .values({ id, expires_at: expiresAt })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async pruneSpentCorrelations(before: number): Promise<number> {
    const result = await this.context.db.deleteFrom('spent_external_correlations').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toLogin(row: Selectable<ExternalLoginsTable>): ExternalLogin {
  return { userId: row.user_id, provider: row.provider, subject: row.subject, createdAt: Number(row.created_at) };
}
