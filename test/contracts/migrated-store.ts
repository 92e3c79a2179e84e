import { afterAll, afterEach, beforeEach } from 'vitest';
import { createStore, type CreateStoreOptions } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/ports.ts';
import type { TestEngine } from '../helpers/databases.ts';

export interface MigratedStore {
  /** The current test's store, on a fresh migrated database. */
  readonly store: Store;
  /** That database, for a second Store or another process. */
  readonly databaseUrl: string;
}

/**
 * Registers hooks that give each test of the enclosing `describe` its own fresh, migrated
 * database on `engine` (its tables where the engine places them), closed after the test and
 * dropped after the suite. The database is a copy of one migrated once for the suite
 * (`createMigratedDatabaseUrl`); `migrate()` still runs on it, and finds nothing pending.
 */
export function useMigratedStore(engine: TestEngine, options: CreateStoreOptions = {}): MigratedStore {
  let current: { store: Store; databaseUrl: string } | undefined;
  beforeEach(async () => {
    const databaseUrl = await engine.createMigratedDatabaseUrl(options.migrations);
    const store = await createStore(databaseUrl, { ...engine.tables, ...options });
    await store.migrate();
    current = { store, databaseUrl };
  });
  afterEach(async () => {
    await current?.store.close();
    current = undefined;
  });
  afterAll(() => engine.dropAll());
  const now = () => {
    if (!current) throw new Error('The store exists only inside a test.');
    return current;
  };
  return {
    get store() {
      return now().store;
    },
    get databaseUrl() {
      return now().databaseUrl;
    },
  };
}
