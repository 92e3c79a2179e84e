import { Migrator, type Kysely } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrationProvider } from '../migrations/migration-provider.ts';
import type { StoreEngine } from '../ports.ts';
import type { TableNaming } from './table-naming.ts';
import { immediateTransaction } from './transaction.ts';

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
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, engine: StoreEngine, naming: TableNaming): Promise<void> {
  if (engine === 'postgres') return runMigrator(db, engine, naming);
  const giveUpAt = Date.now() + SQLITE_MIGRATION_PATIENCE_MS;
  for (;;) {
    try {
      return await immediateTransaction(db, (connection) => runMigrator(connection, engine, naming));
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

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
