import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * The language a user last used here (docs/mails.md, "Languages"): a mail to them that their own
 * request did not cause (a lockout, an admin's resend, a reset someone else asked for) goes in
 * it. Users from before have none until they next register or sign in: their mails take the
 * request's language, else the default.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  await db.schema.alterTable('users').addColumn('language', 'text').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.alterTable('users').dropColumn('language').execute();
}
