/**
 * `gatehouse-auth/store`: Gatehouse's tables on SQLite or PostgreSQL, and their migrations, for
 * an application that runs them itself or shares the database with its own tables.
 */
export { createStore, type CreateStoreOptions } from './create-store.ts';
export type { StoreTableOptions } from './kysely/table-naming.ts';
export type {
  ApplicationDatabase,
  ApplicationMigration,
  ApplicationMigrationContext,
  ApplicationMigrations,
  GatehouseTable,
} from './application-database.ts';
export type { ApplicationStore } from './application-store.ts';
export type { DataVersion, OutboxMessage, Store, StoreEngine, User, UserClaim } from './ports.ts';
export { StoreConflictError, StoreUnavailableError } from './ports.ts';
