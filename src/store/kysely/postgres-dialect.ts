import { PostgresDialect } from 'kysely';
import pg from 'pg';

/** int8 (bigint): epoch-millisecond columns, counts and sums. */
const INT8_OID = 20;

/** How long to wait for a connection before the store reports itself unavailable. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * PostgreSQL through a node-postgres pool (connected lazily, on the first query).
 *
 * int8 is parsed to a JS number for this pool only (not through `pg.types.setTypeParser`,
 * which would change every pool in the process): times are epoch milliseconds, far below 2^53.
 */
export function postgresDialect(connectionString: string, onIdleError: (error: Error) => void): PostgresDialect {
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
  return new PostgresDialect({ pool });
}
