import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * The second step of a sign-in spends its two-factor cookie (docs/reference/http.md): `users` keeps when
 * the last completed one began, and a cookie of a first step begun at or before that time no
 * longer works. One column, no table to prune: the cookies themselves live five minutes.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  await db.schema.alterTable('users').addColumn('two_factor_spent_through', 'bigint').execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.alterTable('users').dropColumn('two_factor_spent_through').execute();
}
