import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A PostgreSQL query with no answer after this long fails as the store being unavailable (a
 * server, or a proxy in front of it, that holds the connection and never answers), and its
 * connection is dropped rather than reused. Gatehouse's own queries take milliseconds.
 */
export const QUERY_TIMEOUT_MS = 10_000;

const unbounded = new AsyncLocalStorage<true>();

/** Runs `work` with queries that take as long as they need: migrations, and their lock's wait for another process's. */
export function withoutQueryTimeout<T>(work: () => Promise<T>): Promise<T> {
  return unbounded.run(true, work);
}

/** The timeout of a query started now: none inside `withoutQueryTimeout`. */
export function queryTimeoutMs(): number | undefined {
  return unbounded.getStore() ? undefined : QUERY_TIMEOUT_MS;
}
