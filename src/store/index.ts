/**
 * `gatehouse-auth/store`: Gatehouse's tables on SQLite or PostgreSQL, and their migrations, for
 * an application that runs them itself or shares the database with its own tables.
 */
import type { OwnedStore } from './application-store.ts';
import { type CreateStoreOptions, createStore as openGatehouseStore } from './create-store.ts';

/**
 * The store for `databaseUrl`: `sqlite:<path>` (a file, relative to the working directory; its
 * folder is created; `sqlite::memory:` for a private in-memory database) or `postgres://…` (a
 * connection pool). Nothing is opened until the first call; connection problems surface there as
 * `StoreUnavailableError`. Call `migrate()` before use, give it to the plugin as `store`, and
 * reach your own tables through `database`. Gatehouse's own tables are reached only through the
 * use cases on `app.gatehouse`.
 */
export const createStore: (databaseUrl: string, options?: CreateStoreOptions) => Promise<OwnedStore> = openGatehouseStore;
export type { CreateStoreOptions };
export type { StoreTableOptions } from './kysely/table-naming.ts';
export type {
  ApplicationDatabase,
  ApplicationMigration,
  ApplicationMigrationContext,
  ApplicationMigrations,
  GatehouseTable,
} from './application-database.ts';
export type { ApplicationStore, OwnedStore as Store } from './application-store.ts';
export type { DataVersion, OutboxMessage, StoreEngine, User, UserClaim } from './ports.ts';
export { StoreConflictError, StoreUnavailableError } from './ports.ts';
