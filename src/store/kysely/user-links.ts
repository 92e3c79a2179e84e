import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { revokeLiveFamilies } from './refresh-token-store.ts';
import { appendRevocations } from './revocation-store.ts';

/** Writes shared by the user store's methods; each runs inside the caller's transaction. */

export async function userExists(trx: Kysely<Database>, userId: number): Promise<boolean> {
  return (await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/**
 * Links the roles to the user, creating the roles first used here; returns how many links are
 * new. Upserts rather than read-then-insert, so concurrent first uses of a role both succeed.
 */
export async function grantRoles(trx: Kysely<Database>, userId: number, roles: readonly string[]): Promise<number> {
  const names = [...new Set(roles)];
  if (names.length === 0) return 0;
  await trx
    .insertInto('roles')
    .values(names.map((name) => ({ name })))
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const result = await trx
    .insertInto('user_roles')
    .columns(['user_id', 'role_id'])
    .expression(
      trx
        .selectFrom(['users', 'roles'])
        .select(['users.id as user_id', 'roles.id as role_id'])
        // SQLite needs a WHERE here to read the ON CONFLICT below as an upsert, which it has.
        .where('users.id', '=', userId)
        .where('roles.name', 'in', names),
    )
    .onConflict((conflict) => conflict.columns(['user_id', 'role_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/**
 * A change of roles or claims: tokens issued before it carry a stale claims stamp. The feed
 * gets the new stamps in the same transaction.
 */
export async function bumpClaimsStamp(trx: Kysely<Database>, userId: number, now: number): Promise<void> {
  const stamps = await trx
    .updateTable('users')
    .set((eb) => ({ claims_stamp: eb('claims_stamp', '+', 1), stamp_changed_at: now }))
    .where('id', '=', userId)
    .returning(['claims_stamp', 'security_stamp'])
    .executeTakeFirst();
  // None when the user is gone: its deletion is in the feed already.
  if (stamps) await appendStampChange(trx, userId, stamps, now);
}

/** Tells the revocation feed the user's new stamps. */
export async function appendStampChange(
  trx: Kysely<Database>,
  userId: number,
  stamps: { claims_stamp: number; security_stamp: number },
  now: number,
): Promise<void> {
  await appendRevocations(trx, [
    { kind: 'user', subject: String(userId), claimsStamp: stamps.claims_stamp, securityStamp: stamps.security_stamp, at: now },
  ]);
}

/** A new password is a security change: every session, refresh family and access token of the user ends. */
export async function setPassword(trx: Kysely<Database>, userId: number, passwordHash: string, now: number): Promise<void> {
  await securityChange(trx, userId, now, { password_hash: passwordHash });
}

/**
 * A security change (docs/reference/tokens.md), with the columns it sets: both stamps go up, the feed hears
 * of it and the user's refresh families end, in the caller's transaction.
 */
export async function securityChange(
  trx: Kysely<Database>,
  userId: number,
  now: number,
  set: { password_hash?: string; two_factor_enabled?: number } = {},
): Promise<void> {
  const stamps = await trx
    .updateTable('users')
    .set((eb) => ({
      ...set,
      security_stamp: eb('security_stamp', '+', 1),
      claims_stamp: eb('claims_stamp', '+', 1),
      stamp_changed_at: now,
    }))
    .where('id', '=', userId)
    .returning(['claims_stamp', 'security_stamp'])
    .executeTakeFirstOrThrow();
  await appendStampChange(trx, userId, stamps, now);
  await revokeLiveFamilies(trx, userId, now);
}
