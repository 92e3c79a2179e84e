import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * Refresh-token families and their tokens (docs/reference/tokens.md: rotation, reuse detection, grace),
 * and the revocation feed that every instance polls.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  // Wide ids in PostgreSQL: one family per sign-in and one token per rotation, and the feed
  // only grows between prunes; identity values are never reused.
  const wideId = idType(engine, true);

  await db.schema
    .createTable('refresh_families')
    .addColumn('id', wideId, autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('security_stamp', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  // Revoking a user's families, and the cascade when a user is deleted.
  await db.schema.createIndex('refresh_families_user_id_index').on('refresh_families').column('user_id').execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('id', wideId, autoId(engine))
    .addColumn('family_id', 'bigint', (c) => c.notNull().references('refresh_families.id').onDelete('cascade'))
    // No foreign key: a token and its parent always belong to one family and go together.
    .addColumn('parent_id', 'bigint')
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('grace_sealed', 'text')
    .addColumn('grace_until', 'bigint')
    .addUniqueConstraint('refresh_tokens_token_hash_unique', ['token_hash'])
    .execute();
  // The cascade from a family, and "is this token's successor still unused?".
  await db.schema.createIndex('refresh_tokens_family_id_index').on('refresh_tokens').column('family_id').execute();
  await db.schema.createIndex('refresh_tokens_parent_id_index').on('refresh_tokens').column('parent_id').execute();

  await db.schema
    .createTable('revocations')
    .addColumn('id', wideId, autoId(engine))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('claims_stamp', 'integer')
    .addColumn('security_stamp', 'integer')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  // Every instance polls by time, and prunes by time.
  await db.schema.createIndex('revocations_at_index').on('revocations').column('at').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  for (const table of ['revocations', 'refresh_tokens', 'refresh_families']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
