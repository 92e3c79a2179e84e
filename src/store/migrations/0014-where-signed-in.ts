import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * "Where you are signed in" (docs/reference/http.md, `GET /account/sessions`): cookie sessions and
 * refresh-token families record their last use and the client of it (user agent, address), and
 * families how their sign-in was made, as sessions do since 0012. Rows from before take their
 * creation as their last use; nobody knows their client or, for families, their method.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  for (const table of ['sessions', 'refresh_families']) {
    await db.schema.alterTable(table).addColumn('last_seen_at', 'bigint').execute();
    await db.schema.alterTable(table).addColumn('user_agent', 'text').execute();
    await db.schema.alterTable(table).addColumn('ip', 'text').execute();
    await db.updateTable(table).set((eb) => ({ last_seen_at: eb.ref('created_at') })).execute();
  }
  await db.schema.alterTable('refresh_families').addColumn('method', 'text').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.alterTable('refresh_families').dropColumn('method').execute();
  for (const table of ['sessions', 'refresh_families']) {
    for (const column of ['ip', 'user_agent', 'last_seen_at']) await db.schema.alterTable(table).dropColumn(column).execute();
  }
}
