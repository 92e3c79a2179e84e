import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * Cookie sessions (docs/reference/http.md, `Cookies`): the auth cookie holds a random session token;
 * only its SHA-256 is stored, so a reader of the database cannot sign in as anyone. The user's
 * security stamp at sign-in is kept so that a later security change ends the session.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('sessions')
    // One row per sign-in: wide in PostgreSQL, and identity values are never reused.
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('security_stamp', 'integer', (c) => c.notNull())
    .addColumn('persistent', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('sessions_token_hash_unique', ['token_hash'])
    .execute();
  // Signing a user out everywhere, and the cascade when a user is deleted.
  await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();
  // Housekeeping deletes by expiry.
  await db.schema.createIndex('sessions_expires_at_index').on('sessions').column('expires_at').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('sessions').ifExists().execute();
}
