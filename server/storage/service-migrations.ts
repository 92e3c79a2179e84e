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
  '0004-organization-settings': { up: organizationSettings },
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
 * Organizations are Gatehouse's own: the service keeps only their settings, in a table of its
 * own. Where Gatehouse adopted the service's old `organizations` table (no table prefix), the
 * settings move over with their ids and the column goes; under a prefix Gatehouse's table is
 * another one, and the old demo table is left as it is.
 */
async function organizationSettings(db: Kysely<any>, { tableName }: ApplicationMigrationContext): Promise<void> {
  const organizations = tableName('organizations');
  await db.schema
    .createTable('organization_settings')
    .addColumn('organization_id', 'integer', (c) => c.primaryKey().references(`${organizations}.id`).onDelete('cascade'))
    .addColumn('settings', 'text', (c) => c.notNull())
    .execute();
  if (organizations !== 'organizations' || !(await hasColumn(db, 'organizations', 'settings'))) return;
  await db
    .insertInto('organization_settings')
    .columns(['organization_id', 'settings'])
    .expression(db.selectFrom('organizations').select(['id', 'settings']).where('settings', '<>', '{}'))
    .execute();
  // SQLite drops a column since 3.35; both engines spell it alike.
  await db.schema.alterTable('organizations').dropColumn('settings').execute();
}

async function hasColumn(db: Kysely<any>, table: string, column: string): Promise<boolean> {
  const tables = await db.introspection.getTables();
  return tables.some((each) => each.name === table && each.columns.some((c) => c.name === column));
}

/**
 * An id the database assigns and never hands out twice (SQLite reuses the highest rowid after a
 * delete without AUTOINCREMENT).
 */
function autoId(engine: StoreEngine): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return (column) => (engine === 'sqlite' ? column.primaryKey().autoIncrement() : column.primaryKey().generatedByDefaultAsIdentity());
}
