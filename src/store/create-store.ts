import type { LogEvent } from 'kysely';
import { type OptionNames, refuseUnknownOptions } from '../config/option-names.ts';
import { resolve } from 'node:path';
import { systemClock, type Clock } from '../platform/clock.ts';
import { importPeer } from '../platform/optional-peers.ts';
import { createKyselyStore } from './kysely/kysely-store.ts';
import { SqliteDataVersion } from './kysely/sqlite-data-version.ts';
import { loadSqliteDriver, sqliteDialect } from './kysely/sqlite-dialect.ts';
import { tableNaming, type StoreTableOptions } from './kysely/table-naming.ts';
import type { ApplicationMigrations } from './application-database.ts';
import type { OwnedStore } from './application-store.ts';
import type { Store } from './ports.ts';

/**
 * `tablePrefix` and `schema` (from `StoreTableOptions`) place Gatehouse's tables beside an
 * application's own in one database.
 */
export interface CreateStoreOptions extends StoreTableOptions {
  /** Kysely's query log (each query or error with its duration); off by default. */
  readonly log?: (event: LogEvent) => void;
  /** The clock that dates stamp changes; @default the system clock */
  readonly clock?: Clock;
  /** Where a PostgreSQL pool reports an error on an idle connection; @default ignored (the next query reconnects) */
  readonly onIdleError?: (error: Error) => void;
  /**
   * SQLite: WAL checkpoints on a thread of their own, off the event loop (the service sets it; a
   * CLI command that exits after a few statements does not). `onError` hears of a failed one.
   */
  readonly backgroundCheckpoints?: { readonly onError: (message: string) => void };
  /**
   * The application's own migrations, applied by `migrate()` after Gatehouse's, on the same
   * connections (see `Store.database`); recorded in `application_migration`.
   */
  readonly migrations?: ApplicationMigrations;
}

const STORE_OPTIONS = {
  tablePrefix: true, schema: true, log: true, clock: true, onIdleError: true, backgroundCheckpoints: true, migrations: true,
} as const satisfies OptionNames<CreateStoreOptions>;

/**
 * The store for `DATABASE_URL`:
 * - `sqlite:<path>`: a file, relative to the working directory; its folder is created. `sqlite::memory:` for a private in-memory database.
 * - `postgres://…` or `postgresql://…`: a connection pool.
 *
 * Nothing is opened until the first call; connection problems surface there as
 * `StoreUnavailableError`. Call `migrate()` before using the ports. A `tablePrefix` or `schema`
 * that cannot be used throws here.
 */
export async function createStore(databaseUrl: string, options: CreateStoreOptions = {}): Promise<Store> {
  refuseUnknownOptions('createStore', options, STORE_OPTIONS);
  return openStore(databaseUrl, options);
}

/** Gatehouse's ports, which every store of `createStore` carries behind the application's handle. */
const PORTS = [
  'users', 'apiKeys', 'keyRing', 'audit', 'refreshTokens', 'revocations', 'accountCodes', 'outbox', 'sessions', 'userSessions',
  'twoFactor', 'externalLogins', 'passkeys', 'organizations',
] as const satisfies readonly (keyof Store)[];

/**
 * The whole store behind an application's handle, for the plugin. Told by its ports rather than
 * by a record of the stores made here: an application may load a second copy of the library
 * (an autoloader), whose plugin must take the store the first one made.
 */
export function storeBehind(owned: OwnedStore): Store {
  if (!isWholeStore(owned)) throw new Error('store: give the store that createStore of gatehouse-auth/store opened.');
  return owned;
}

function isWholeStore(owned: OwnedStore): owned is Store {
  return PORTS.every((port) => port in owned);
}

async function openStore(databaseUrl: string, options: CreateStoreOptions): Promise<Store> {
  const storeOptions = { clock: options.clock ?? systemClock, migrations: options.migrations, ...(options.log ? { log: options.log } : {}) };
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path === '') throw new Error('DATABASE_URL "sqlite:" names no file; expected sqlite:<path>, e.g. sqlite:./data/gatehouse.db.');
    const naming = tableNaming('sqlite', options);
    // The driver is an optional peer: a missing one fails here, not at the first query.
    await loadSqliteDriver();
    const dataVersion = new SqliteDataVersion();
    const dialect = sqliteDialect(path === ':memory:' ? path : resolve(path), {
      dataVersion,
      ...(options.backgroundCheckpoints ? { backgroundCheckpoints: options.backgroundCheckpoints } : {}),
    });
    return createKyselyStore('sqlite', dialect, { ...storeOptions, dataVersion, naming });
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const naming = tableNaming('postgres', options);
    // Loaded only for PostgreSQL: the pg driver is megabytes of memory an SQLite service never uses.
    const { postgresDialect } = await importPeer('pg', 'A postgres:// database URL', () => import('./kysely/postgres-dialect.ts'));
    const { dialect, withoutQueryTimeout } = postgresDialect(databaseUrl, options.onIdleError ?? (() => {}));
    return createKyselyStore('postgres', dialect, { ...storeOptions, naming, withoutQueryTimeout });
  }
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(databaseUrl)?.[0] ?? databaseUrl.slice(0, 20);
  throw new Error(`Unsupported DATABASE_URL "${scheme}…": expected sqlite:<path> or postgres://user@host:port/database.`);
}
