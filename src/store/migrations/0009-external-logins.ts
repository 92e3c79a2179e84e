import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * External sign-ins (docs/reference/http.md): a user's logins at OpenID Connect providers, found by the
 * pair (provider, subject) — the provider's `sub` is stable, its e-mail is not.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('external_logins')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('external_logins_provider_subject_unique', ['provider', 'subject'])
    // One login per provider and user: linking a second account of the same provider replaces nothing silently.
    .addUniqueConstraint('external_logins_user_provider_unique', ['user_id', 'provider'])
    .execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('external_logins').ifExists().execute();
}
