import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.ts';
import type { StoreEngine } from '../ports.ts';
import type { Database } from './database.ts';

/** What every Kysely port needs: the database, the clock for stamp times, and transactions. */
export interface StoreContext {
  /** The ambient unit of work's transaction, or the pool: read it at each query, never keep it. */
  readonly db: Kysely<Database>;
  /** For the few statements the engines write differently (a row lock exists only in PostgreSQL). */
  readonly engine: StoreEngine;
  readonly clock: Clock;
  /**
   * Runs `work` as one transaction (see `transaction.ts` for the engine differences), or joins
   * the ambient unit of work's. Inside `work`, query through `trx` only: outside a unit of work
   * `db` is the pool, which on SQLite waits for the connection the transaction holds.
   */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
}
