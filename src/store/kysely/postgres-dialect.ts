import {
  PostgresAdapter,
  PostgresDialect,
  sql,
  type DialectAdapter,
  type Kysely,
  type MigrationLockOptions,
  type PostgresPool,
  type PostgresPoolClient,
} from 'kysely';
import pg from 'pg';

/** int8 (bigint): epoch-millisecond columns, counts and sums. */
const INT8_OID = 20;

/**
 * How long to wait for a connection before the store reports itself unavailable: a new one
 * (a server that accepts TCP and never answers included), or a free one of the pool's.
 */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A PostgreSQL query with no answer after this long fails as the store being unavailable (a
 * server, or a proxy in front of it, that holds the connection and never answers), and its
 * connection is dropped rather than reused. Gatehouse's own queries take milliseconds.
 */
export const QUERY_TIMEOUT_MS = 10_000;

/** How long a migration waits for another process's, as Kysely's own lock does. */
const MIGRATION_LOCK_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * PostgreSQL through a node-postgres pool (connected lazily, on the first query). Every wait is
 * bounded, so that a request meets `StoreUnavailableError` (503) instead of hanging while the
 * server is down or unreachable: the connection (`CONNECT_TIMEOUT_MS`, which also bounds the wait
 * for a free connection of the pool) and each query (`QUERY_TIMEOUT_MS`). The pool recovers on
 * its own: a dead connection is dropped, and the next query opens a new one.
 *
 * int8 is parsed to a JS number for this pool only (not through `pg.types.setTypeParser`,
 * which would change every pool in the process): times are epoch milliseconds, far below 2^53.
 */
export function postgresDialect(connectionString: string, onIdleError: (error: Error) => void): BoundedPostgres {
  const pool = new pg.Pool({
    connectionString,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client whose server went away emits 'error' on the pool; unhandled, that would
  // crash the process. The next query gets a fresh client (or StoreUnavailableError).
  pool.on('error', onIdleError);
  // A client that is checked out (between Kysely's acquire and release) has no pool listener;
  // its 'error' on a dropped connection would crash the process too. The query in flight, if
  // any, rejects on its own and becomes StoreUnavailableError.
  pool.on('connect', (client) => client.on('error', onIdleError));
  const unbounded = { runs: 0 };
  return {
    dialect: new GatehousePostgresDialect({ pool: boundedPool(pool, unbounded) }),
    // A flag of this pool's, not an AsyncLocalStorage: one of those, once run, turns on Node's
    // async hooks for the whole process, a cost on every promise of every request thereafter.
    withoutQueryTimeout: async (work) => {
      unbounded.runs++;
      try {
        return await work();
      } finally {
        unbounded.runs--;
      }
    },
  };
}

/** The dialect, and the way to run a migration without the query timeout. */
export interface BoundedPostgres {
  readonly dialect: PostgresDialect;
  /**
   * Runs `work` with this pool's queries as long as they need: a migration, and its lock's wait
   * for another process's. Every query of the pool meanwhile, for migrations run while serving.
   */
  withoutQueryTimeout<T>(work: () => Promise<T>): Promise<T>;
}

/** The pool as Kysely uses it, with each query's timeout (none while `unbounded.runs` > 0). */
function boundedPool(pool: pg.Pool, unbounded: { readonly runs: number }): PostgresPool {
  return {
    connect: async () => boundedClient(await pool.connect(), unbounded),
    end: () => pool.end(),
  };
}

/**
 * A query that had no answer in time leaves its connection waiting for that answer: released
 * with the error, the pool closes it instead of handing it to the next query.
 */
function boundedClient(client: pg.PoolClient, unbounded: { readonly runs: number }): PostgresPoolClient {
  let unanswered: Error | undefined;
  const query = (text: string, values: readonly unknown[]) => {
    const timeout = unbounded.runs > 0 ? {} : { query_timeout: QUERY_TIMEOUT_MS };
    return client.query({ text, values: [...values], ...timeout }).catch((error: unknown) => {
      if (error instanceof Error && error.message === 'Query read timeout') unanswered = error;
      throw error;
    });
  };
  return {
    query: ((textOrCursor: unknown, values: readonly unknown[] = []) =>
      typeof textOrCursor === 'string' ? query(textOrCursor, values) : client.query(textOrCursor as pg.Submittable)) as unknown as PostgresPoolClient['query'],
    release: () => client.release(unanswered),
  };
}

class GatehousePostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new MigrationLockPerTable();
  }
}

/**
 * Kysely's migrator locks with one advisory lock id for every migrator of the database. Under a
 * table prefix or schema, Gatehouse's lock is its own, keyed by its lock table's name: an
 * application that runs Gatehouse's `migrate()` from one of its own Kysely migrations holds
 * Kysely's lock on another connection, and would otherwise wait for itself for an hour. With
 * the default names the lock stays Kysely's, as older versions of Gatehouse take it.
 */
class MigrationLockPerTable extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    if (isKyselysOwn(options)) return super.acquireMigrationLock(db, options);
    await sql`
      with set_timeout as (select set_config('lock_timeout', ${String(MIGRATION_LOCK_TIMEOUT_MS)}, true))
      select pg_advisory_lock(hashtextextended(${lockName(options)}, 0)) from set_timeout`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    if (isKyselysOwn(options)) return super.releaseMigrationLock(db, options);
    await sql`select pg_advisory_unlock(hashtextextended(${lockName(options)}, 0))`.execute(db);
  }
}

function isKyselysOwn(options: MigrationLockOptions): boolean {
  return options.lockTable === 'kysely_migration_lock' && options.lockTableSchema === undefined;
}

function lockName(options: MigrationLockOptions): string {
  return `${options.lockTableSchema ?? ''}.${options.lockTable}`;
}
