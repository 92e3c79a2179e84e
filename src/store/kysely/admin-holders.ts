import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import type { Database } from './database.ts';

/**
 * Whether taking `userId` away from the usable holders of `adminRole` (a lock, a deletion, the
 * role's removal) would leave none: the user holds the role and every other holder is locked by
 * an admin. An automatic lockout does not count: it ends by itself. Run it in the transaction
 * of the change, before it: from here to the commit, no other such change can count.
 */
export async function isLastUsableAdmin(
  trx: Kysely<Database>,
  engine: StoreEngine,
  userId: number,
  adminRole: string,
): Promise<boolean> {
  const roleId = await serializeAdminChanges(trx, engine, adminRole);
  if (roleId === undefined) return false;
  const holders = await trx
    .selectFrom('user_roles')
    .innerJoin('users', 'users.id', 'user_roles.user_id')
    .select('users.id')
    .where('user_roles.role_id', '=', roleId)
    .where((eb) => eb.or([eb('users.id', '=', userId), eb('users.locked_by_admin', '=', 0)]))
    // The user and one other usable holder are all it takes to know.
    .limit(2)
    .execute();
  return holders.length === 1 && holders[0]!.id === userId;
}

/**
 * The admin role's id, with every change to its holders made to run one after another until the
 * transaction ends: two admins taking each other away at once must not both see the other stay.
 * SQLite's BEGIN IMMEDIATE already runs writers one at a time. PostgreSQL, at READ COMMITTED,
 * locks the role's row; each statement after the lock sees what the transaction before it
 * committed. The lock leaves the row's key alone, so granting the role meanwhile does not wait.
 * Undefined when the role was never used: nobody holds it.
 */
async function serializeAdminChanges(trx: Kysely<Database>, engine: StoreEngine, adminRole: string): Promise<number | undefined> {
  const query = trx.selectFrom('roles').select('id').where('name', '=', adminRole);
  const row = await (engine === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst();
  return row?.id;
}
