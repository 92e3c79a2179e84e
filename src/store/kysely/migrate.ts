import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApplicationMigrationContext, ApplicationMigrations } from '../application-database.ts';
import { migrationProvider } from '../migrations/migration-provider.ts';
import type { StoreEngine } from '../ports.ts';
import type { TableNaming } from './table-naming.ts';
import { immediateTransaction } from './transaction.ts';

/** Where the application's migrations are recorded, apart from Gatehouse's. */
const APPLICATION_MIGRATION_TABLE = 'application_migration';

/** How long a SQLite start-up waits for another process's migration before giving up. */
const SQLITE_MIGRATION_PATIENCE_MS = 60_000;

/**
 * Applies pending migrations; safe when several processes (instances, the CLI) run it at once.
 *
 * PostgreSQL: Kysely's migrator holds an advisory lock and runs the migrations in a transaction;
 * the second process waits, then finds nothing pending.
 *
 * SQLite: Kysely takes no lock there and runs DDL outside a transaction, so two processes would
 * both try `CREATE TABLE users`. Here the whole run (the migrator's own tables included) is one
 * BEGIN IMMEDIATE transaction: the second process waits on the write lock (busy_timeout, then
 * these retries), then finds nothing pending; a failed migration leaves nothing behind.
 *
 * The migrator keeps its bookkeeping in `<prefix>kysely_migration` (and `…_lock`), in the
 * store's schema, so that an application's own Kysely migrator, with the default names, never
 * reads Gatehouse's list as its own. The migrator itself runs without the store's naming
 * plugins (its table names are final); each migration runs with them.
 *
 * The application's migrations (`applicationMigrations`) run next, in the same SQLite
 * transaction, without the naming plugins (their names are the application's), recorded in
 * `application_migration`.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  engine: StoreEngine,
  naming: TableNaming,
  applicationMigrations: ApplicationMigrations = {},
): Promise<void> {
  const migrateAll = async (connection: Kysely<DB>) => {
    await runMigrator(connection, engine, naming);
    if (Object.keys(applicationMigrations).length > 0) await runApplicationMigrator(connection, engine, naming, applicationMigrations);
  };
  if (engine === 'postgres') return migrateAll(db);
  const giveUpAt = Date.now() + SQLITE_MIGRATION_PATIENCE_MS;
  for (;;) {
    try {
      return await immediateTransaction(db, migrateAll);
    } catch (error) {
      if (!isSqliteBusy(error) || Date.now() > giveUpAt) throw error;
      await sleep(50 + Math.random() * 200);
    }
  }
}

async function runMigrator<DB>(db: Kysely<DB>, engine: StoreEngine, naming: TableNaming): Promise<void> {
  const migrator = new Migrator({
    db: db.withoutPlugins(),
    provider: migrationProvider(engine, (migrationDb) => naming.on(migrationDb)),
    migrationTableName: naming.migrationTable,
    migrationLockTableName: naming.migrationLockTable,
    // Kysely creates the schema (if missing) before its tables.
    ...(naming.schema !== undefined ? { migrationTableSchema: naming.schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}

async function runApplicationMigrator<DB>(
  db: Kysely<DB>,
  engine: StoreEngine,
  naming: TableNaming,
  migrations: ApplicationMigrations,
): Promise<void> {
  const context: ApplicationMigrationContext = { engine, tableName: (table) => naming.qualified(table) };
  const bound: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    const { down } = migration;
    bound[name] = { up: (migrationDb) => migration.up(migrationDb, context), ...(down ? { down: (migrationDb) => down(migrationDb, context) } : {}) };
  }
  const provider: MigrationProvider = { getMigrations: async () => bound };
  const migrator = new Migrator({
    db: db.withoutPlugins(),
    provider,
    migrationTableName: APPLICATION_MIGRATION_TABLE,
    migrationLockTableName: `${APPLICATION_MIGRATION_TABLE}_lock`,
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
