import type { Kysely } from 'kysely';
import type { StoreEngine } from './ports.ts';

/**
 * Gatehouse's database as the application's tables share it: the same connections (the SQLite
 * file's one connection, or the PostgreSQL pool), so that an application adds its tables without
 * opening the database a second time. Decision 0045.
 */
export interface ApplicationDatabase {
  readonly engine: StoreEngine;
  /**
   * Kysely over the store's connections. Names are the application's, as written: Gatehouse's
   * table prefix and schema do not apply to them.
   */
  kysely<DB>(): Kysely<DB>;
  /**
   * Runs `work` as one transaction, as Gatehouse's own writes run: on SQLite it begins
   * IMMEDIATE, so that a write of another process waits for the lock instead of failing. Query
   * through `trx` only inside it.
   */
  transaction<DB, T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * How the database names one of Gatehouse's tables, for a foreign key from an application's
   * table: `users`, or `gh_users` under a table prefix, or `gatehouse.users` in a schema.
   */
  tableName(table: GatehouseTable): string;
}

/** The tables of Gatehouse's that an application's own may refer to: its users, and its organizations (a tenant's rows). */
export type GatehouseTable = 'users' | 'organizations';

/** What an application's migration is told besides the database it writes through. */
export interface ApplicationMigrationContext {
  readonly engine: StoreEngine;
  /** See `ApplicationDatabase.tableName`. */
  tableName(table: GatehouseTable): string;
}

/**
 * One migration of the application's own tables, applied by `store.migrate()` after Gatehouse's
 * and recorded apart from them (in `application_migration`). As with Kysely's migrations: never
 * rename or edit one that has run; add the next.
 */
export interface ApplicationMigration {
  up(db: Kysely<any>, context: ApplicationMigrationContext): Promise<void>;
  down?(db: Kysely<any>, context: ApplicationMigrationContext): Promise<void>;
}

/** The application's migrations by name, applied in the order of their names. */
export type ApplicationMigrations = Readonly<Record<string, ApplicationMigration>>;
