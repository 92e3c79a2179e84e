import type { Store } from './ports.ts';

/**
 * What an application reaches of the store Gatehouse runs on: its own tables on the same
 * connections (decision 0045), the engine, and the data version that tells whether anything
 * changed since an earlier read. Gatehouse's own tables are reached only through its use cases.
 */
export type ApplicationStore = Pick<Store, 'engine' | 'database' | 'dataVersion'>;

/**
 * A store as the application holds it, from `createStore` of `gatehouse-auth/store`: given to the
 * plugin (`store`), migrated at start, closed by its owner, and the application's own tables.
 */
export interface OwnedStore extends ApplicationStore {
  /**
   * Applies pending migrations, Gatehouse's and then the application's (`migrations` of
   * `createStore`); safe to run from several processes at once.
   */
  migrate(): Promise<void>;
  /** A trivial round trip, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The application's view of `store`, holding nothing else of it. */
export function applicationStore(store: Store): ApplicationStore {
  return Object.freeze({ engine: store.engine, database: store.database, dataVersion: store.dataVersion });
}
