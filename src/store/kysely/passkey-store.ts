import type { Kysely, Selectable } from 'kysely';
import type { NewPasskey, Passkey, PasskeyChallenge, PasskeyChallengePurpose, PasskeyStore } from '../ports.ts';
import type { Database, PasskeyChallengesTable, PasskeysTable } from './database.ts';
import type { StoreContext } from './store-context.ts';
import { securityChange } from './user-links.ts';

/**
 * Passkeys and the challenges of their ceremonies (docs/passkeys.md). The two steps that must
 * hold across instances are single statements: a challenge is taken by DELETE … RETURNING
 * (exactly one caller gets the row), and a use moves the counter by a conditional UPDATE (a
 * counter that does not go up writes nothing).
 */
export class KyselyPasskeyStore implements PasskeyStore {
  constructor(private readonly context: StoreContext) {}

  async add(passkey: NewPasskey): Promise<Passkey> {
    const row = await this.context.db
      .insertInto('passkeys')
      .values({
        user_id: passkey.userId,
        credential_id: passkey.credentialId,
        public_key: passkey.publicKey,
        counter: passkey.counter,
        transports: passkey.transports.join(','),
        backed_up: passkey.backedUp ? 1 : 0,
        device_type: passkey.deviceType,
        name: passkey.name,
        created_at: passkey.createdAt,
        last_used_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toPasskey(row);
  }

  async findByCredentialId(credentialId: string): Promise<Passkey | null> {
    const row = await this.context.db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
    return row ? toPasskey(row) : null;
  }

  async listForUser(userId: number): Promise<Passkey[]> {
    const rows = await this.context.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    return rows.map(toPasskey);
  }

  async rename(userId: number, credentialId: string, name: string): Promise<boolean> {
    const result = await this.context.db
      .updateTable('passkeys')
      .set({ name })
      .where('user_id', '=', userId)
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async recordUse(credentialId: string, use: { counter: number; backedUp: boolean; usedAt: number }): Promise<boolean> {
    const result = await this.context.db
      .updateTable('passkeys')
      .set({ counter: use.counter, backed_up: use.backedUp ? 1 : 0, last_used_at: use.usedAt })
      .where('credential_id', '=', credentialId)
      // Up, or 0 staying 0 (an authenticator that keeps no counter).
      .where('counter', use.counter === 0 ? '=' : '<', use.counter)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async removeUnlessLastWayIn(userId: number, credentialId: string, now: number): Promise<'removed' | 'not-found' | 'last-way-in'> {
    return this.context.transaction(async (trx) => {
      // Concurrent removals of the user's ways in queue on the user's row (PostgreSQL); SQLite's
      // transaction holds the write lock from its start.
      const user = await lockUser(trx, this.context.engine, userId);
      if (user === undefined) return 'not-found';
      const passkeys = await trx.selectFrom('passkeys').select('credential_id').where('user_id', '=', userId).execute();
      if (!passkeys.some((passkey) => passkey.credential_id === credentialId)) return 'not-found';
      if (user.password_hash === null && passkeys.length === 1 && (await countLogins(trx, userId)) === 0) return 'last-way-in';
      await trx.deleteFrom('passkeys').where('user_id', '=', userId).where('credential_id', '=', credentialId).execute();
      await securityChange(trx, userId, now);
      return 'removed';
    });
  }

  async issueChallenge(challenge: PasskeyChallenge): Promise<void> {
    await this.context.db
      .insertInto('passkey_challenges')
      .values({
        id: challenge.id,
        purpose: challenge.purpose,
        user_id: challenge.userId,
        binding: challenge.binding,
        name: challenge.name,
        expires_at: challenge.expiresAt,
      })
      .execute();
  }

  async spendChallenge(id: string, purpose: PasskeyChallengePurpose, now: number): Promise<PasskeyChallenge | null> {
    // Deleted whatever its purpose or expiry: a challenge presented once is never good again.
    const row = await this.context.db.deleteFrom('passkey_challenges').where('id', '=', id).returningAll().executeTakeFirst();
    if (row === undefined || row.purpose !== purpose || Number(row.expires_at) <= now) return null;
    return toChallenge(row);
  }

  async pruneChallenges(before: number): Promise<number> {
    const result = await this.context.db.deleteFrom('passkey_challenges').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The user's password hash, with the row locked for the transaction on PostgreSQL; undefined for an unknown user. */
export async function lockUser(trx: Kysely<Database>, engine: StoreContext['engine'], userId: number) {
  return trx
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .$if(engine === 'postgres', (query) => query.forUpdate())
    .executeTakeFirst();
}

async function countLogins(trx: Kysely<Database>, userId: number): Promise<number> {
  const row = await trx.selectFrom('external_logins').select((eb) => eb.fn.countAll<number>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** How many passkeys the user has, inside the caller's transaction (a way in, for the last-way-in rule). */
export async function countPasskeys(trx: Kysely<Database>, userId: number): Promise<number> {
  const row = await trx.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

// Ids and times are bigint in PostgreSQL; the pool parses int8 to number, Number() settles the type.
function toPasskey(row: Selectable<PasskeysTable>): Passkey {
  return {
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports === '' ? [] : row.transports.split(','),
    backedUp: row.backed_up === 1,
    deviceType: row.device_type,
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  };
}

function toChallenge(row: Selectable<PasskeyChallengesTable>): PasskeyChallenge {
  return { id: row.id, purpose: row.purpose, userId: row.user_id, binding: row.binding, name: row.name, expiresAt: Number(row.expires_at) };
}
