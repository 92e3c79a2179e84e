/**
 * The server-side half of an external sign-in's single use (docs/external-login.md): a flow is
 * spent once, by whichever instance takes its callback first, and forgotten once it expired.
 */
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEnginesWithPrefixedTables();

describe.each(engines)('spent external sign-in flows on $label', (engine) => {
  const database = useMigratedStore(engine);
  const logins = () => database.store.externalLogins;

  it('spends a flow once: a replayed callback finds it spent', async () => {
    expect(await logins().spendCorrelation('flow-1', 2_000)).toBe(true);
    expect(await logins().spendCorrelation('flow-1', 2_000)).toBe(false);
    expect(await logins().spendCorrelation('flow-2', 2_000)).toBe(true);
  });

  it('lets exactly one of many concurrent callbacks on two instances take the flow', async () => {
    const second = await createStore(database.databaseUrl, engine.tables);
    try {
      for (let round = 0; round < 10; round++) {
        const id = `raced-${round}`;
        const stores = [database.store, second, database.store, second, database.store, second];
        const outcomes = await Promise.all(stores.map((store) => store.externalLogins.spendCorrelation(id, 5_000)));
        expect(outcomes.filter(Boolean)).toHaveLength(1);
      }
    } finally {
      await second.close();
    }
  });

  it('forgets flows once they expired, and only those', async () => {
    await logins().spendCorrelation('old', 1_000);
    await logins().spendCorrelation('young', 3_000);
    expect(await logins().pruneSpentCorrelations(2_000)).toBe(1);
    expect(await logins().spendCorrelation('young', 3_000)).toBe(false);
    // Pruned after its cookie expired: a replay of it is refused by the cookie's own expiry.
    expect(await logins().spendCorrelation('old', 1_000)).toBe(true);
  });
});
