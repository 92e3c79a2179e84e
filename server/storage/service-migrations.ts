import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { ApplicationMigrationContext, ApplicationMigrations, StoreEngine } from 'gatehouse-auth/store';

/**
 * The service's tables, applied by Gatehouse's `store.migrate()` after its own. They begin with
 * "if not exists": a database made before they were the service's own (decision 0045) has them
 * from Gatehouse's migrations of that time, data and all.
 */
export const serviceMigrations: ApplicationMigrations = {
  '0001-documents-and-organizations': { up: documentsAndOrganizations },
  '0002-posts': { up: posts },
  '0003-event-outbox': { up: eventOutbox },
};

async function documentsAndOrganizations(db: Kysely<any>, { engine, tableName }: ApplicationMigrationContext): Promise<void> {
  await db.schema
    .createTable('documents')
    .ifNotExists()
    .addColumn('id', 'integer', autoId(engine))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references(`${tableName('users')}.id`).onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // PostgreSQL does not index foreign keys by itself; deleting a user would scan documents.
  await db.schema.createIndex('documents_owner_id_index').ifNotExists().on('documents').column('owner_id').execute();

  await db.schema
    .createTable('organizations')
    .ifNotExists()
    .addColumn('id', 'integer', autoId(engine))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function posts(db: Kysely<any>, { engine, tableName }: ApplicationMigrationContext): Promise<void> {
  await db.schema
    .createTable('posts')
    .ifNotExists()
    // Wide in PostgreSQL (SQLite's AUTOINCREMENT only works on exactly `integer`, 64 bits anyway).
    .addColumn('id', engine === 'postgres' ? 'bigint' : 'integer', autoId(engine))
    .addColumn('author_id', 'integer', (c) => c.notNull().references(`${tableName('users')}.id`).onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Newest first is by id: ids only grow, and two posts of one millisecond keep their order.
  await db.schema.createIndex('posts_author_index').ifNotExists().on('posts').columns(['author_id', 'id']).execute();
}

/** The transactional outbox of the service's events (decision 0053). */
async function eventOutbox(db: Kysely<any>, { engine }: ApplicationMigrationContext): Promise<void> {
  await db.schema
    .createTable('event_outbox')
    .addColumn('id', engine === 'postgres' ? 'bigint' : 'integer', autoId(engine))
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('published_at', 'bigint')
    .addColumn('claimed_until', 'bigint')
    .execute();
  // The relay looks for unpublished rows (null first) by age, housekeeping for published ones by age.
  await db.schema.createIndex('event_outbox_published_index').on('event_outbox').columns(['published_at', 'created_at']).execute();
}

/**
 * An id the database assigns and never hands out twice (SQLite reuses the highest rowid after a
 * delete without AUTOINCREMENT).
 */
function autoId(engine: StoreEngine): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return (column) => (engine === 'sqlite' ? column.primaryKey().autoIncrement() : column.primaryKey().generatedByDefaultAsIdentity());
}
