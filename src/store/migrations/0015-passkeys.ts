import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * Passkeys (docs/passkeys.md): a user's WebAuthn credentials, found by their credential id, and
 * the challenges of the ceremonies in flight. A challenge is kept only as its hash, under a
 * primary key, and taken by one DELETE … RETURNING: of several uses of one challenge, on any
 * instance, exactly one gets it.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The credential id, base64url, as the authenticator chose it (at most 1,023 bytes).
    .addColumn('credential_id', 'text', (c) => c.notNull())
    // The COSE public key, base64url.
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    // The transports the authenticator named, comma-separated ('' for none).
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull())
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addUniqueConstraint('passkeys_credential_id_unique', ['credential_id'])
    .execute();
  await db.schema.createIndex('passkeys_user_id').on('passkeys').column('user_id').execute();

  await db.schema
    .createTable('passkey_challenges')
    // SHA-256 of the challenge, hex: the challenge itself is never stored.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    // Registration: the user, and the session (or caller) that asked, which alone may answer it.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('binding', 'text')
    // The name asked for with the options, for a registration that names none itself.
    .addColumn('name', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('passkey_challenges_expires_at').on('passkey_challenges').column('expires_at').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('passkey_challenges').ifExists().execute();
  await db.schema.dropTable('passkeys').ifExists().execute();
}
