import { WithSchemaPlugin, type Kysely, type KyselyPlugin } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { gatehouseTables } from './database.ts';
import { isReservedTablePrefix, isSystemSchema } from './reserved-names.ts';
import { TablePrefixPlugin } from './table-prefix-plugin.ts';

/** Where Gatehouse's tables live in a database that an application shares with it. */
export interface StoreTableOptions {
  /**
   * Put before the name of every table, index and constraint of Gatehouse's: `'gh_'` gives
   * `gh_users`, `gh_sessions`, … and the migrations' own `gh_kysely_migration`. Lower-case
   * letters, digits and `_`, starting with a letter, at most 20 characters.
   * @default '' (the names the reference service has always used)
   */
  readonly tablePrefix?: string;
  /**
   * PostgreSQL only: the schema that holds the tables (migrations included), created by
   * `migrate()` when missing. Same characters as `tablePrefix`, at most 63.
   * @default the connection's search path (usually `public`)
   */
  readonly schema?: string;
}

/** The resolved names: what the store's queries and its migrator use. */
export interface TableNaming {
  readonly tablePrefix: string;
  readonly schema: string | undefined;
  /** Kysely's bookkeeping of applied migrations, and its lock table; prefixed like the rest. */
  readonly migrationTable: string;
  readonly migrationLockTable: string;
  /** The Kysely instance that writes `users` and means `<schema>.<prefix>users`. */
  on<DB>(db: Kysely<DB>): Kysely<DB>;
  /** `users` as the database names it: `<schema>.<prefix>users`. */
  qualified(table: string): string;
}

const MAX_PREFIX_LENGTH = 20;
/** PostgreSQL's identifier limit (NAMEDATALEN - 1). */
const MAX_SCHEMA_LENGTH = 63;

/**
 * Checks the options and resolves the names. Lower case only: PostgreSQL folds unquoted names
 * to lower case, so `GH_users` would need quotes in every query written by hand, and SQLite
 * compares table names without case, so it would still collide with an application's `gh_users`.
 * The prefix is short so that the longest constraint name stays under PostgreSQL's 63 bytes,
 * which it would otherwise cut silently.
 */
export function tableNaming(engine: StoreEngine, options: StoreTableOptions = {}): TableNaming {
  const tablePrefix = options.tablePrefix ?? '';
  const { schema } = options;
  if (tablePrefix !== '' && (!isIdentifier(tablePrefix, MAX_PREFIX_LENGTH) || isReservedTablePrefix(tablePrefix))) {
    throw new Error(
      `tablePrefix ${JSON.stringify(tablePrefix)} is not usable: expected lower-case letters, digits and "_", ` +
        `starting with a letter but not "pg_" or "sqlite_", at most ${MAX_PREFIX_LENGTH} characters (e.g. "gh_").`,
    );
  }
  if (schema !== undefined) {
    if (engine !== 'postgres') {
      throw new Error(`schema ${JSON.stringify(schema)} is for PostgreSQL; on SQLite keep Gatehouse's tables apart with tablePrefix.`);
    }
    if (!isIdentifier(schema, MAX_SCHEMA_LENGTH) || isSystemSchema(schema)) {
      throw new Error(
        `schema ${JSON.stringify(schema)} is not usable: expected lower-case letters, digits and "_", ` +
          `starting with a letter, not a system schema ("pg_…", information_schema), at most ${MAX_SCHEMA_LENGTH} characters (e.g. "gatehouse").`,
      );
    }
  }
  const plugins: KyselyPlugin[] = [
    ...(tablePrefix !== '' ? [new TablePrefixPlugin(tablePrefix, gatehouseTables)] : []),
    // After the prefix: the schema plugin qualifies the names the prefix plugin produced.
    ...(schema !== undefined ? [new WithSchemaPlugin(schema)] : []),
  ];
  return {
    tablePrefix,
    schema,
    migrationTable: `${tablePrefix}kysely_migration`,
    migrationLockTable: `${tablePrefix}kysely_migration_lock`,
    on: (db) => plugins.reduce((withPlugins, plugin) => withPlugins.withPlugin(plugin), db),
    qualified: (table) => `${schema !== undefined ? `${schema}.` : ''}${tablePrefix}${table}`,
  };
}

function isIdentifier(name: string, maxLength: number): boolean {
  return name.length <= maxLength && /^[a-z][a-z0-9_]*$/.test(name);
}
