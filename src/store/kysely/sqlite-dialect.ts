import BetterSqlite3 from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../ports.ts';

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * SQLite through better-sqlite3, opened on first use so that a file that cannot be opened
 * surfaces as `StoreUnavailableError` from the first port call, as an unreachable PostgreSQL does.
 *
 * The server and the CLI share the file from separate processes: WAL lets readers run beside
 * the one writer, and busy_timeout makes a writer wait for the lock instead of failing. Keep one
 * Store per process per file: better-sqlite3 waits synchronously, so a second connection in the
 * same process would block the event loop while the first one holds the lock.
 */
export function sqliteDialect(filename: string): SqliteDialect {
  return new SqliteDialect({
    database: async () => {
      try {
        if (filename !== ':memory:') await mkdir(dirname(filename), { recursive: true });
        // `timeout` is SQLite's busy_timeout, set before the first statement (the WAL switch
        // below needs a lock that another process may hold).
        return configure(new BetterSqlite3(filename, { timeout: BUSY_TIMEOUT_MS }));
      } catch (error) {
        throw new StoreUnavailableError({ cause: error });
      }
    },
  });
}

function configure(database: BetterSqlite3.Database): BetterSqlite3.Database {
  try {
    database.pragma('journal_mode = WAL');
    // In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives the process
    // being killed (it is in the OS's hands), and only a power cut can lose the last ones, never
    // corrupt the file. FULL would fsync on every sign-in, with the event loop waiting (the
    // driver is synchronous). docs/decisions/0019-hashing-slots-and-sqlite-sync.md
    database.pragma('synchronous = NORMAL');
    // Off by default in SQLite, per connection; the cascades depend on it.
    database.pragma('foreign_keys = ON');
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}
