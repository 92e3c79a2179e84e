import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * A session records how it was opened (docs/reference/http.md, `GET /account/sessions`): unlinking a
 * provider ends the sessions opened through it. Sessions opened before keep NULL: nobody knows.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('method', 'text').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('method').execute();
}
