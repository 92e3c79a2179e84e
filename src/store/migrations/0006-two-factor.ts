import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * Two-factor sign-in (docs/reference/http.md and docs/reference/membership.md): the flag and the phone number on the user, the
 * authenticator key (sealed like the key ring) with the last TOTP step accepted, recovery codes
 * and the 6-digit codes sent by mail or SMS, both stored only as hashes.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema.alterTable('users').addColumn('two_factor_enabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('users').addColumn('phone_number', 'text').execute();
  await db.schema.alterTable('users').addColumn('phone_confirmed', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('authenticator_keys')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    // The key in use while two-factor is on, and one set up but not yet confirmed by a code.
    .addColumn('active_key', 'text')
    .addColumn('pending_key', 'text')
    // RFC 6238 time step of the last code accepted: no code of that step or earlier works again.
    .addColumn('last_step', 'bigint')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('recovery_codes_user_index').on('recovery_codes').columns(['user_id', 'code_hash']).execute();

  await db.schema
    .createTable('one_time_codes')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    // For a phone confirmation: the number the code was sent to, which it confirms.
    .addColumn('phone_number', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('one_time_codes_user_purpose_index').on('one_time_codes').columns(['user_id', 'purpose']).execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('one_time_codes').ifExists().execute();
  await db.schema.dropTable('recovery_codes').ifExists().execute();
  await db.schema.dropTable('authenticator_keys').ifExists().execute();
  await db.schema.alterTable('users').dropColumn('phone_confirmed').execute();
  await db.schema.alterTable('users').dropColumn('phone_number').execute();
  await db.schema.alterTable('users').dropColumn('two_factor_enabled').execute();
}
