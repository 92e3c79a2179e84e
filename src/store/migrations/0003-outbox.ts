import { sql, type Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/**
 * The dev outbox (docs/reference/configuration.md): without SMTP_URL (or SMS_WEBHOOK_URL) outside production,
 * mail and SMS land here in full, so a developer or a test can read the links and codes that
 * the log must never show.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('mail', 'sms')`))
    .addColumn('recipient', 'text', (c) => c.notNull())
    // Null for SMS, which has no subject.
    .addColumn('subject', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // "The latest mail to this address": a filter on the recipient, newest (highest id) first.
  await db.schema.createIndex('outbox_recipient_index').on('outbox').columns(['recipient', 'id']).execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('outbox').ifExists().execute();
}
