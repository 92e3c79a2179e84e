import type { Kysely, Selectable } from 'kysely';
import type { User, UserClaim } from '../ports.ts';
import type { Database, UsersTable } from './database.ts';
import { ReusableQuery } from './reusable-query.ts';

/** Which users to load. `all` reads every role and claim link at once instead of listing ids. */
export type UserFilter = { readonly ids: readonly number[] } | 'all';

/** Which one user to load. */
export type UserKey = { readonly id: number } | { readonly normalizedEmail: string } | { readonly normalizedUserName: string };

/**
 * One user with roles and claims: the look-up of every sign-in and every cookie request, so its
 * three statements are compiled once (one set per store: the SQL is the engine's).
 */
export class UserQueries {
  private readonly byId = new ReusableQuery((db: Kysely<Database>, p: { id: number }) =>
    db.selectFrom('users').selectAll().where('id', '=', p.id),
  );
  private readonly byEmail = new ReusableQuery((db: Kysely<Database>, p: { normalizedEmail: string }) =>
    db.selectFrom('users').selectAll().where('normalized_email', '=', p.normalizedEmail),
  );
  private readonly byUserName = new ReusableQuery((db: Kysely<Database>, p: { normalizedUserName: string }) =>
    db.selectFrom('users').selectAll().where('normalized_user_name', '=', p.normalizedUserName),
  );
  private readonly roles = new ReusableQuery((db: Kysely<Database>, p: { userId: number }) =>
    db
      .selectFrom('user_roles')
      .innerJoin('roles', 'roles.id', 'user_roles.role_id')
      .select('roles.name')
      .where('user_roles.user_id', '=', p.userId)
      // Byte order on both engines: the column is COLLATE "C" in PostgreSQL.
      .orderBy('roles.name'),
  );
  private readonly claims = new ReusableQuery((db: Kysely<Database>, p: { userId: number }) =>
    db.selectFrom('user_claims').select(['type', 'value']).where('user_id', '=', p.userId).orderBy('id'),
  );

  async load(db: Kysely<Database>, key: UserKey): Promise<User | null> {
    const row =
      'id' in key
        ? await this.byId.first(db, key)
        : 'normalizedEmail' in key
          ? await this.byEmail.first(db, key)
          : await this.byUserName.first(db, key);
    if (row === undefined) return null;
    // Side by side: on PostgreSQL one round trip's wait instead of two (SQLite runs them in turn anyway).
    const [roles, claims] = await Promise.all([this.roles.rows(db, { userId: row.id }), this.claims.rows(db, { userId: row.id })]);
    return toUser(row, roles.map((role) => role.name), claims.map((claim): UserClaim => ({ type: claim.type, value: claim.value })));
  }
}

/**
 * Users with their roles (sorted by name) and claims (in insertion order), by id: three queries
 * whatever the number of users, never one per user.
 */
export async function loadUsers(db: Kysely<Database>, filter: UserFilter): Promise<User[]> {
  let query = db.selectFrom('users').selectAll().orderBy('id');
  if (filter !== 'all') {
    if (filter.ids.length === 0) return [];
    query = query.where('id', 'in', [...filter.ids]);
  }
  const rows = await query.execute();
  if (rows.length === 0) return [];

  const ids = rows.map((row) => row.id);
  const [roleRows, claimRows] = await Promise.all([
    db
      .selectFrom('user_roles')
      .innerJoin('roles', 'roles.id', 'user_roles.role_id')
      .select(['user_roles.user_id', 'roles.name'])
      .$if(filter !== 'all', (q) => q.where('user_roles.user_id', 'in', ids))
      // Byte order on both engines: the column is COLLATE "C" in PostgreSQL.
      .orderBy('roles.name')
      .execute(),
    db
      .selectFrom('user_claims')
      .select(['user_id', 'type', 'value'])
      .$if(filter !== 'all', (q) => q.where('user_id', 'in', ids))
      .orderBy('id')
      .execute(),
  ]);

  const roles = groupBy(roleRows, (row) => row.user_id, (row) => row.name);
  const claims = groupBy(claimRows, (row) => row.user_id, (row): UserClaim => ({ type: row.type, value: row.value }));
  return rows.map((row) => toUser(row, roles.get(row.id) ?? [], claims.get(row.id) ?? []));
}

function toUser(row: Selectable<UsersTable>, roles: string[], claims: UserClaim[]): User {
  return {
    id: row.id,
    email: row.email,
    userName: row.user_name,
    passwordHash: row.password_hash,
    emailConfirmed: row.email_confirmed !== 0,
    securityStamp: row.security_stamp,
    claimsStamp: row.claims_stamp,
    lockoutEnd: row.lockout_end,
    lockedByAdmin: row.locked_by_admin !== 0,
    accessFailedCount: row.access_failed_count,
    createdAt: row.created_at,
    roles,
    claims,
    twoFactorEnabled: row.two_factor_enabled !== 0,
    phoneNumber: row.phone_number,
    phoneConfirmed: row.phone_confirmed !== 0,
    twoFactorSpentThrough: row.two_factor_spent_through,
    activeOrganizationId: row.active_organization_id,
    language: row.language,
  };
}

function groupBy<Row, Item>(rows: Row[], key: (row: Row) => number, item: (row: Row) => Item): Map<number, Item[]> {
  const groups = new Map<number, Item[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(item(row));
    else groups.set(key(row), [item(row)]);
  }
  return groups;
}
