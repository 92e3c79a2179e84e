import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * Codes mailed to a user: e-mail confirmation and password reset (docs/reference/http.md and docs/reference/membership.md). Only a
 * SHA-256 of each code is stored. A confirmation code may hold the password a re-registration
 * asked for, applied only when that code is used.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('account_codes')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('pending_password_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addUniqueConstraint('account_codes_code_hash_unique', ['code_hash'])
    .execute();
  // Voiding a user's older codes of one purpose, and the cascade when a user is deleted.
  await db.schema.createIndex('account_codes_user_purpose_index').on('account_codes').columns(['user_id', 'purpose']).execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('account_codes').ifExists().execute();
}
