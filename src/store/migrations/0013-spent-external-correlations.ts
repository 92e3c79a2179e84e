import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * External sign-in flows whose callback has been taken (docs/external-login.md): a correlation
 * is spent on the server before the code is exchanged, so a callback replayed with the same
 * cookie, on any instance, sends the provider no second token request. Rows are kept only
 * until the correlation cookie itself expires, and pruned after.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('spent_external_correlations')
    // SHA-256 of the flow's state, hex: the state itself is never stored.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('spent_external_correlations_expires_at').on('spent_external_correlations').column('expires_at').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('spent_external_correlations').ifExists().execute();
}
