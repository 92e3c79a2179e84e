import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import type { StoreEngine, UnitOfWork } from '../ports.ts';
import type { Database } from './database.ts';
import { inTransaction } from './transaction.ts';

/** The transaction a unit of work runs in, and what waits for its commit. */
interface Ambient {
  readonly trx: Kysely<Database>;
  readonly afterCommit: (() => void)[];
}

/**
 * The store's transactions, held in the async context of the work that opened them, so that every
 * port call made inside a unit of work joins its one transaction without being handed it.
 *
 * `db` is the ambient transaction when there is one and the pool otherwise; a port's own
 * transaction joins the ambient one instead of nesting. On SQLite this is what keeps a unit of
 * work alive: its transaction holds the one connection, and a query sent to the pool meanwhile
 * would wait for it forever.
 *
 * Node 20's AsyncLocalStorage, once run, turns on async hooks for the whole process: a cost on
 * every promise of every request (about 100 ns each, measured). Only a unit of work runs the
 * storage, and it is disabled again whenever no unit is open, so that a process pays it only
 * while one is.
 */
export class AmbientTransactions implements UnitOfWork {
  private readonly ambient = new AsyncLocalStorage<Ambient>();
  /** Units of work open now; the storage is disabled when none is. */
  private openUnits = 0;

  constructor(
    private readonly pool: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  /** Where a port's query goes now: the unit of work's transaction, or the pool. */
  get db(): Kysely<Database> {
    return this.ambient.getStore()?.trx ?? this.pool;
  }

  /**
   * A port's own transaction: `work` in the ambient one, or in a new one that commits when `work`
   * ends. A new one is no unit of work (its port queries through `trx` already): no storage to
   * run, so that the sign-in path's transactions leave the async hooks off.
   */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    const joined = this.ambient.getStore();
    if (joined !== undefined) return work(joined.trx);
    return inTransaction(this.pool, this.engine, work);
  }

  atomically<T>(work: () => Promise<T>): Promise<T> {
    if (this.ambient.getStore() !== undefined) return work();
    return this.open(work);
  }

  afterCommit(effect: () => void): void {
    const joined = this.ambient.getStore();
    if (joined === undefined) effect();
    else joined.afterCommit.push(effect);
  }

  private async open<T>(work: () => Promise<T>): Promise<T> {
    const afterCommit: (() => void)[] = [];
    this.openUnits++;
    let result: T;
    try {
      result = await inTransaction(this.pool, this.engine, (trx) => this.ambient.run({ trx, afterCommit }, work));
    } finally {
      if (--this.openUnits === 0) this.ambient.disable();
    }
    // Outside the transaction's context now: an effect that uses the store reaches the pool.
    for (const effect of afterCommit) effect();
    return result;
  }
}
