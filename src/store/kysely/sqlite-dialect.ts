import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { mkdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { importPeer } from '../../platform/optional-peers.ts';
import { StoreUnavailableError } from '../ports.ts';
import type { SqliteDataVersion } from './sqlite-data-version.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
/** Distinct statements kept compiled; the store issues a few dozen, `IN` lists add one per length. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * SQLite through better-sqlite3, opened on first use so that a file that cannot be opened
 * surfaces as `StoreUnavailableError` from the first port call, as an unreachable PostgreSQL does.
 *
 * The server and the CLI share the file from separate processes: WAL lets readers run beside
 * the one writer, and busy_timeout makes a writer wait for the lock instead of failing. Keep one
 * Store per process per file: better-sqlite3 waits synchronously, so a second connection in the
 * same process would block the event loop while the first one holds the lock.
 */
export interface SqliteDialectOptions {
  readonly dataVersion?: SqliteDataVersion;
  /**
   * WAL checkpoints on a thread of their own instead of inside the commits of this connection
   * (wal-checkpointer.ts): for the long-running service, not for a command that runs a few
   * statements and exits. `onError` hears of a checkpoint that failed.
   */
  readonly backgroundCheckpoints?: { readonly onError: (message: string) => void };
}

let driver: Promise<typeof BetterSqlite3> | undefined;

/** better-sqlite3, an optional peer: loaded with the first SQLite store, never by a PostgreSQL one. */
export function loadSqliteDriver(): Promise<typeof BetterSqlite3> {
  return (driver ??= importPeer('better-sqlite3', 'A sqlite: database URL', async () => (await import('better-sqlite3')).default));
}

export function sqliteDialect(filename: string, options: SqliteDialectOptions = {}): SqliteDialect {
  const { dataVersion, backgroundCheckpoints } = options;
  return new SqliteDialect({
    database: async () => {
      const BetterSqlite3 = await loadSqliteDriver();
      try {
        if (filename !== ':memory:') await mkdir(dirname(filename), { recursive: true });
        // `timeout` is SQLite's busy_timeout, set before the first statement (the WAL switch
        // below needs a lock that another process may hold).
        const database = await configured(new BetterSqlite3(filename, { timeout: BUSY_TIMEOUT_MS }));
        dataVersion?.attach(database);
        let checkpointer: WalCheckpointer | undefined;
        if (backgroundCheckpoints && filename !== ':memory:') {
          database.pragma('wal_autocheckpoint = 0');
          checkpointer = new WalCheckpointer({ filename, busyTimeoutMs: BUSY_TIMEOUT_MS, onError: backgroundCheckpoints.onError });
        }
        return withStatementCache(database, dataVersion, checkpointer);
      } catch (error) {
        throw new StoreUnavailableError({ cause: error });
      }
    },
  });
}

/**
 * The switch to WAL on a brand-new file can meet SQLITE_BUSY without SQLite's busy handler being
 * asked (another process is converting the same file at that moment), so it is retried here
 * within the same busy timeout.
 */
async function configured(database: BetterSqlite3.Database): Promise<BetterSqlite3.Database> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return configure(database);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) {
        database.close();
        throw error;
      }
      await sleep(20 + Math.random() * 30);
    }
  }
}

function configure(database: BetterSqlite3.Database): BetterSqlite3.Database {
  database.pragma('journal_mode = WAL');
  // In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives the process
  // being killed (it is in the OS's hands), and only a power cut can lose the last ones, never
  // corrupt the file. FULL would fsync on every sign-in, with the event loop waiting (the
  // driver is synchronous). docs/decisions/0019-hashing-slots-and-sqlite-sync.md
  database.pragma('synchronous = NORMAL');
  // Off by default in SQLite, per connection; the cascades depend on it.
  database.pragma('foreign_keys = ON');
  return database;
}

/**
 * Kysely prepares every query afresh, and SQLite then parses and plans the same few statements
 * on every request: a sign-in spent more time in `prepare` than in running its queries. Prepared
 * statements are reusable, so the same SQL gets the same statement. Safe because better-sqlite3
 * runs a statement to completion before returning; only an open `iterate()` holds one, and the
 * store never streams.
 *
 * Kysely runs each statement right after preparing it, so preparing anything but a plain
 * `select` tells the data version that this connection is about to write.
 */
function withStatementCache(
  database: BetterSqlite3.Database,
  dataVersion: SqliteDataVersion | undefined,
  checkpointer: WalCheckpointer | undefined,
): SqliteDatabase {
  const statements = new Map<string, { readonly statement: SqliteStatement; readonly writes: boolean }>();
  return {
    close: () => {
      void checkpointer?.stop();
      database.close();
    },
    prepare(sql) {
      let entry = statements.get(sql);
      if (entry === undefined) {
        entry = { statement: database.prepare(sql), writes: !/^\s*select\s/i.test(sql) };
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
        statements.set(sql, entry);
      }
      if (entry.writes) dataVersion?.noteWrite();
      return entry.statement;
    },
  };
}
