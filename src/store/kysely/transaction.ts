import { sql, type Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * Runs `work` as one transaction: it commits whole or not at all.
 *
 * PostgreSQL uses Kysely's transaction (READ COMMITTED; the stores write with upserts and
 * INSERT … SELECT so that this is enough). SQLite begins IMMEDIATE: the write lock is taken up
 * front, where `busy_timeout` waits for another process to finish. A plain (deferred) BEGIN
 * that reads and then writes fails at once with SQLITE_BUSY when another process wrote in
 * between, busy timeout or not.
 */
export async function inTransaction<DB, T>(
  db: Kysely<DB>,
  engine: StoreEngine,
  work: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (engine === 'postgres') return db.transaction().execute(work);
  return immediateTransaction(db, work);
}

/** SQLite only: BEGIN IMMEDIATE on the one connection, COMMIT or ROLLBACK. */
export async function immediateTransaction<DB, T>(db: Kysely<DB>, work: (connection: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    let result: T;
    try {
      result = await work(connection);
    } catch (error) {
      // Some errors (SQLITE_FULL, SQLITE_IOERR) have already rolled back; then ROLLBACK itself
      // fails with "no transaction is active", which would hide the real error.
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
    await sql`commit`.execute(connection);
    return result;
  });
}
