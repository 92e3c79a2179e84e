import { sql, type Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, binaryText, idType } from './columns.ts';

/**
 * The initial schema. Unique constraints carry explicit names: PostgreSQL reports the name and
 * SQLite the `table.column`, and `../kysely/store-errors.ts` maps both to the field that was taken.
 *
 * Until decision 0045 it also created the reference service's `documents` and `organizations`;
 * those are the service's own migrations now (which create them only where this one did not).
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('normalized_email', 'text', (c) => c.notNull())
    .addColumn('user_name', 'text')
    .addColumn('normalized_user_name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('email_confirmed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('security_stamp', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('claims_stamp', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('stamp_changed_at', 'bigint', (c) => c.notNull())
    .addColumn('lockout_end', 'bigint')
    .addColumn('locked_by_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('access_failed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('users_normalized_email_unique', ['normalized_email'])
    // NULLs never collide, on either engine: many users may have no user name.
    .addUniqueConstraint('users_normalized_user_name_unique', ['normalized_user_name'])
    .execute();
  // Every instance polls this for revocations (docs/reference/tokens.md).
  await db.schema.createIndex('users_stamp_changed_at_index').on('users').column('stamp_changed_at').execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', idType(engine), autoId(engine))
    // Case-sensitive: "Admin" and "admin" are two roles, as in ASP.NET Core Identity's claims.
    .addColumn('name', 'text', binaryText(engine, (c) => c.notNull()))
    .addUniqueConstraint('roles_name_unique', ['name'])
    .execute();

  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role_id', 'integer', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_roles_pkey', ['user_id', 'role_id'])
    .execute();
  await db.schema.createIndex('user_roles_role_id_index').on('user_roles').column('role_id').execute();

  await db.schema
    .createTable('user_claims')
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addUniqueConstraint('user_claims_user_type_value_unique', ['user_id', 'type', 'value'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('client', 'text', binaryText(engine, (c) => c.notNull()))
    .addColumn('public_id', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addUniqueConstraint('api_keys_public_id_unique', ['public_id'])
    .execute();
  await db.schema.createIndex('api_keys_client_index').on('api_keys').column('client').execute();
  await db.schema.createIndex('api_keys_revoked_at_index').on('api_keys').column('revoked_at').execute();

  await db.schema
    .createTable('key_ring')
    // One row, id 1: the primary key is the lock that makes instances starting together agree
    // on a single ring.
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('secrets', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('key_ring_single_row', sql`id = 1`)
    .execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', binaryText(engine, (c) => c.notNull()))
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addPrimaryKeyConstraint('signing_keys_pkey', ['kid'])
    .execute();

  await db.schema
    .createTable('audit')
    // Wide in PostgreSQL: the log only grows. The primary key also serves "newest first".
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('type', 'text', (c) => c.notNull())
    // No foreign key: the audit trail outlives the users it mentions.
    .addColumn('user_id', 'integer')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('detail', 'text')
    .execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  for (const table of [
    'audit',
    'signing_keys',
    'key_ring',
    'api_keys',
    'user_claims',
    'user_roles',
    'roles',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
