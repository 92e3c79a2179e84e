import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * Users imported from another system (`users import --aspnet`) keep their old id as
 * `external_id`, unique, so that the import's source can be matched to the new integer ids.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  await db.schema.alterTable('users').addColumn('external_id', 'text').execute();
  await db.schema.createIndex('users_external_id_unique').unique().on('users').column('external_id').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropIndex('users_external_id_unique').ifExists().execute();
  await db.schema.alterTable('users').dropColumn('external_id').execute();
}
