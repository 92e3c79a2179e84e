import type { Kysely } from 'kysely';
import type { ApplicationDatabase, GatehouseTable } from '../application-database.ts';
import type { StoreEngine } from '../ports.ts';
import type { TableNaming } from './table-naming.ts';
import { inTransaction } from './transaction.ts';

/**
 * The store's connections for the application's tables: `connections` is the Kysely instance
 * without Gatehouse's naming plugins, so the application's names reach the database as written.
 * It shares the driver (and so the SQLite connection's statement cache and data version, which
 * then see the application's writes too).
 */
export function applicationDatabase(connections: Kysely<any>, engine: StoreEngine, naming: TableNaming): ApplicationDatabase {
  return {
    engine,
    kysely: <DB>() => connections as unknown as Kysely<DB>,
    transaction: <DB, T>(work: (trx: Kysely<DB>) => Promise<T>) => inTransaction(connections as unknown as Kysely<DB>, engine, work),
    tableName: (table: GatehouseTable) => naming.qualified(table),
  };
}
