import { type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from './database.ts';
import type { AdminKeepingChange, FailedSignIn, NewUser, StoredPasswordHash, User, UserClaim, UserSearch, UserSearchPage, UserStore } from '../ports.ts';
import { isLastUsableAdmin } from './admin-holders.ts';
import type { StoreContext } from './store-context.ts';
import { revokeLiveFamilies } from './refresh-token-store.ts';
import { appendRevocations } from './revocation-store.ts';
import { appendStampChange, bumpClaimsStamp, grantRoles, setPassword, userExists } from './user-links.ts';
import { ReusableQuery } from './reusable-query.ts';
import { loadUsers, UserQueries } from './user-query.ts';

/** Users with their roles and claims. Every write that touches more than one row is one transaction. */
export class KyselyUserStore implements UserStore {
  private readonly queries = new UserQueries();
  // Every sign-in runs these two, so they are compiled once. Both are conditional on the account
  // not being locked at `now`, like recordFailedSignIn: a lockout committed by a concurrent
  // failure after the sign-in read the user still wins.
  private readonly unlockedFailureCount = new ReusableQuery((db: Kysely<Database>, p: { userId: number; now: number }) =>
    db.selectFrom('users').select('access_failed_count').where('id', '=', p.userId).where(unlockedAt(p.now)),
  );
  private readonly resetFailureCount = new ReusableQuery((db: Kysely<Database>, p: { userId: number; now: number }) =>
    db.updateTable('users').set({ access_failed_count: 0 }).where('id', '=', p.userId).where(unlockedAt(p.now)).returning('id'),
  );

  constructor(private readonly context: StoreContext) {}

  async create(user: NewUser): Promise<User> {
    return this.context.transaction((trx) => insertUser(trx, user));
  }

  async createMany(users: readonly NewUser[]): Promise<User[]> {
    return this.context.transaction(async (trx) => {
      const created: User[] = [];
      for (const user of users) created.push(await insertUser(trx, user));
      return created;
    });
  }

  async findById(id: number): Promise<User | null> {
    return this.queries.load(this.context.db, { id });
  }

  async findByIds(ids: readonly number[]): Promise<User[]> {
    // One id (a viewer, a post's author) takes the compiled statements of `findById`.
    if (ids.length === 1) {
      const user = await this.queries.load(this.context.db, { id: ids[0]! });
      return user === null ? [] : [user];
    }
    return loadUsers(this.context.db, { ids });
  }

  async findByNormalizedEmail(normalizedEmail: string): Promise<User | null> {
    return this.queries.load(this.context.db, { normalizedEmail });
  }

  async findByNormalizedUserName(normalizedUserName: string): Promise<User | null> {
    return this.queries.load(this.context.db, { normalizedUserName });
  }

  async list(): Promise<User[]> {
    return loadUsers(this.context.db, 'all');
  }

  async search({ query, limit, offset }: UserSearch): Promise<UserSearchPage> {
    const { db } = this.context;
    const matching = db.selectFrom('users').$if(query !== '', (q) => q.where(containing(query)));
    const [counted, page] = await Promise.all([
      matching.select((eb) => eb.fn.countAll<number | string | bigint>().as('total')).executeTakeFirstOrThrow(),
      matching.select('id').orderBy('id').limit(limit).offset(offset).execute(),
    ]);
    // The count is bigint in PostgreSQL, which the pool hands over as text.
    return { users: await loadUsers(db, { ids: page.map((row) => row.id) }), total: Number(counted.total) };
  }

  async delete(id: number): Promise<boolean> {
    return this.context.transaction((trx) => deleteUser(trx, id, this.context.clock.now()));
  }

  async deleteKeepingAdmin(id: number, adminRole: string): Promise<AdminKeepingChange> {
    return this.keepingAdmin(id, adminRole, (trx) => deleteUser(trx, id, this.context.clock.now()));
  }

  async addRole(userId: number, role: string): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      // Checked first so that no role is created for a user that does not exist.
      if (!(await userExists(trx, userId))) return false;
      if ((await grantRoles(trx, userId, [role])) === 0) return false;
      await bumpClaimsStamp(trx, userId, this.context.clock.now());
      return true;
    });
  }

  async removeRole(userId: number, role: string): Promise<boolean> {
    return this.context.transaction((trx) => removeRole(trx, userId, role, this.context.clock.now()));
  }

  async removeRoleKeepingAdmin(userId: number, role: string, adminRole: string): Promise<AdminKeepingChange> {
    const remove = (trx: Kysely<Database>) => removeRole(trx, userId, role, this.context.clock.now());
    // Only the admin role's holders are counted; any other role goes as with removeRole.
    if (role !== adminRole) return (await this.context.transaction(remove)) ? 'done' : 'absent';
    return this.keepingAdmin(userId, adminRole, remove);
  }

  async addClaim(userId: number, claim: UserClaim): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      if (!(await userExists(trx, userId))) return false;
      const result = await trx
        .insertInto('user_claims')
        .values({ user_id: userId, type: claim.type, value: claim.value })
        .onConflict((conflict) => conflict.columns(['user_id', 'type', 'value']).doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      await bumpClaimsStamp(trx, userId, this.context.clock.now());
      return true;
    });
  }

  async removeClaim(userId: number, claim: UserClaim): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      const result = await trx
        .deleteFrom('user_claims')
        .where('user_id', '=', userId)
        .where('type', '=', claim.type)
        .where('value', '=', claim.value)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await bumpClaimsStamp(trx, userId, this.context.clock.now());
      return true;
    });
  }

  async setAdminLock(userId: number, locked: boolean): Promise<boolean> {
    if (!locked) {
      // Unlocking revokes nothing: the user simply signs in again.
      const result = await this.context.db
        .updateTable('users')
        .set({ locked_by_admin: 0 })
        .where('id', '=', userId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    }
    return this.context.transaction((trx) => lockUser(trx, userId, this.context.clock.now()));
  }

  async lockKeepingAdmin(userId: number, adminRole: string): Promise<AdminKeepingChange> {
    return this.keepingAdmin(userId, adminRole, (trx) => lockUser(trx, userId, this.context.clock.now()));
  }

  /** `change` in one transaction with the check that the user is not the last usable admin. */
  private keepingAdmin(
    userId: number,
    adminRole: string,
    change: (trx: Kysely<Database>) => Promise<boolean>,
  ): Promise<AdminKeepingChange> {
    return this.context.transaction(async (trx) => {
      if (await isLastUsableAdmin(trx, this.context.engine, userId, adminRole)) return 'last-admin';
      return (await change(trx)) ? 'done' : 'absent';
    });
  }

  async setPassword(userId: number, passwordHash: string): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      if (!(await userExists(trx, userId))) return false;
      await setPassword(trx, userId, passwordHash, this.context.clock.now());
      return true;
    });
  }

  async clearLockout(userId: number): Promise<boolean> {
    const result = await this.context.db
      .updateTable('users')
      .set({ lockout_end: null, access_failed_count: 0 })
      .where('id', '=', userId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async recordFailedSignIn(userId: number, { maxAttempts, lockoutEnd, now }: FailedSignIn): Promise<boolean> {
    // One conditional UPDATE, no read first: SQLite runs it alone; PostgreSQL makes concurrent
    // ones wait on the row and re-checks the WHERE against the row the winner wrote, so the
    // failure after a lock finds the account locked and counts nothing.
    const reachesMax = sql<boolean>`access_failed_count + 1 >= ${maxAttempts}`;
    const row = await this.context.db
      .updateTable('users')
      .set({
        access_failed_count: sql<number>`case when ${reachesMax} then 0 else access_failed_count + 1 end`,
        lockout_end: sql<number | null>`case when ${reachesMax} then ${lockoutEnd} else lockout_end end`,
      })
      .where('id', '=', userId)
      .where('locked_by_admin', '=', 0)
      .where((eb) => eb.or([eb('lockout_end', 'is', null), eb('lockout_end', '<=', now)]))
      .returning('lockout_end')
      .executeTakeFirst();
    return row !== undefined && row.lockout_end !== null && row.lockout_end > now;
  }

  async completeSignIn(userId: number, now: number): Promise<boolean> {
    const { db } = this.context;
    const row = await this.unlockedFailureCount.first(db, { userId, now });
    if (row === undefined) return false;
    if (row.access_failed_count === 0) return true;
    return (await this.resetFailureCount.first(db, { userId, now })) !== undefined;
  }

  async rememberLanguage(userId: number, language: string): Promise<boolean> {
    const result = await this.context.db.updateTable('users').set({ language }).where('id', '=', userId).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async spendTwoFactorStep(userId: number, startedAt: number): Promise<boolean> {
    // One conditional UPDATE: of concurrent second steps with one cookie, exactly one moves the mark.
    const result = await this.context.db
      .updateTable('users')
      .set({ two_factor_spent_through: startedAt })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('two_factor_spent_through', 'is', null), eb('two_factor_spent_through', '<', startedAt)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async upgradePasswordHash(userId: number, expectedHash: string, newHash: string): Promise<boolean> {
    const result = await this.context.db
      .updateTable('users')
      .set({ password_hash: newHash })
      .where('id', '=', userId)
      .where('password_hash', '=', expectedHash)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async listNonArgon2PasswordHashes(afterUserId: number, limit: number): Promise<StoredPasswordHash[]> {
    // substr, not LIKE: SQLite's LIKE ignores case and PostgreSQL's does not; this compares bytes on both.
    const rows = await this.context.db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('id', '>', afterUserId)
      .where('password_hash', 'is not', null)
      .where(sql<string>`substr(${sql.ref('password_hash')}, 1, 7)`, '<>', '$argon2')
      .orderBy('id')
      .limit(limit)
      .$narrowType<{ password_hash: string }>()
      .execute();
    return rows.map((row) => ({ userId: row.id, passwordHash: row.password_hash }));
  }
}

/** Deletes the user inside the caller's transaction; false when there was none. */
async function deleteUser(trx: Kysely<Database>, id: number, now: number): Promise<boolean> {
  // Roles links, claims, documents and refresh families go with it (ON DELETE CASCADE);
  // audit rows stay.
  const result = await trx.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  if (result.numDeletedRows === 0n) return false;
  await appendRevocations(trx, [{ kind: 'user-deleted', subject: String(id), at: now }]);
  return true;
}

/** Takes the role from the user inside the caller's transaction; false when the user lacked it. */
async function removeRole(trx: Kysely<Database>, userId: number, role: string, now: number): Promise<boolean> {
  const result = await trx
    .deleteFrom('user_roles')
    .where('user_id', '=', userId)
    .where('role_id', 'in', trx.selectFrom('roles').select('id').where('name', '=', role))
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) return false;
  await bumpClaimsStamp(trx, userId, now);
  return true;
}

/** An admin lock inside the caller's transaction; false for an unknown user. */
async function lockUser(trx: Kysely<Database>, userId: number, now: number): Promise<boolean> {
  // A lock is a security change: sessions, refresh families and tokens end.
  const stamps = await trx
    .updateTable('users')
    .set((eb) => ({
      locked_by_admin: 1,
      security_stamp: eb('security_stamp', '+', 1),
      claims_stamp: eb('claims_stamp', '+', 1),
      stamp_changed_at: now,
    }))
    .where('id', '=', userId)
    .returning(['claims_stamp', 'security_stamp'])
    .executeTakeFirst();
  if (!stamps) return false;
  await appendStampChange(trx, userId, stamps, now);
  await revokeLiveFamilies(trx, userId, now);
  return true;
}

/**
 * The normalized e-mail or user name contains `query` in lower case. LIKE with its wildcards
 * escaped, so that `%` and `_` match themselves; both sides are lower case, so SQLite's LIKE
 * (which ignores ASCII case) and PostgreSQL's (which does not) agree.
 */
function containing(query: string) {
  const pattern = `%${query.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  const like = (column: 'normalized_email' | 'normalized_user_name') => sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '\\'`;
  return (eb: ExpressionBuilder<Database, 'users'>) => eb.or([like('normalized_email'), like('normalized_user_name')]);
}

/** Neither locked by an admin nor in a lockout at `now`. */
function unlockedAt(now: number) {
  return (eb: ExpressionBuilder<Database, 'users'>) =>
    eb.and([eb('locked_by_admin', '=', 0), eb.or([eb('lockout_end', 'is', null), eb('lockout_end', '<=', now)])]);
}

/** A user with its roles and claims, inside the caller's transaction. */
export async function insertUser(trx: Kysely<Database>, user: NewUser): Promise<User> {
  const { id } = await trx
    .insertInto('users')
    .values({
      email: user.email,
      normalized_email: user.normalizedEmail,
      user_name: user.userName,
      normalized_user_name: user.normalizedUserName,
      password_hash: user.passwordHash,
      email_confirmed: user.emailConfirmed ? 1 : 0,
      external_id: user.externalId ?? null,
      language: user.language ?? null,
      stamp_changed_at: user.createdAt,
      created_at: user.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await grantRoles(trx, id, user.roles ?? []);
  const claims = user.claims ?? [];
  if (claims.length > 0) {
    // A repeated pair fails the unique constraint and rolls the whole user back.
    await trx
      .insertInto('user_claims')
      .values(claims.map((claim) => ({ user_id: id, type: claim.type, value: claim.value })))
      .execute();
  }
  const [created] = await loadUsers(trx, { ids: [id] });
  if (!created) throw new Error(`User ${id} vanished inside its own transaction.`);
  return created;
}
