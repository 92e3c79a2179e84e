import type { Kysely, Selectable } from 'kysely';
import type { User, UserClaim } from '../ports.ts';
import type { Database, UsersTable } from './database.ts';

/** Which users to load. `all` reads every role and claim link at once instead of listing ids. */
export type UserFilter =
  | { readonly id: number }
  | { readonly ids: readonly number[] }
  | { readonly normalizedEmail: string }
  | { readonly normalizedUserName: string }
  | 'all';

/**
 * Users with their roles (sorted by name) and claims (in insertion order), by id: three queries
 * whatever the number of users, never one per user.
 */
export async function loadUsers(db: Kysely<Database>, filter: UserFilter): Promise<User[]> {
  let query = db.selectFrom('users').selectAll().orderBy('id');
  if (filter !== 'all') {
    if ('id' in filter) query = query.where('id', '=', filter.id);
    else if ('ids' in filter) {
      if (filter.ids.length === 0) return [];
      query = query.where('id', 'in', [...filter.ids]);
    }
    else if ('normalizedEmail' in filter) query = query.where('normalized_email', '=', filter.normalizedEmail);
    else query = query.where('normalized_user_name', '=', filter.normalizedUserName);
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
