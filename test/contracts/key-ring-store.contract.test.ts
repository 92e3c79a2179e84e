import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { StoreConflictError, type SigningKeyRecord } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { inSeparateProcesses } from './separate-processes.ts';

// Also with the tables under a prefix (and a schema): a representative set of the ports.
const engines = await testEnginesWithPrefixedTables();

function signingKey(kid: string, createdAt = 1_000): SigningKeyRecord {
  return { kid, alg: 'EdDSA', publicJwk: `{"kid":"${kid}"}`, privateJwk: `sealed:${kid}`, createdAt, revokedAt: null };
}

describe.each(engines)('KeyRingStore on $label', (engine) => {
  const clock = new ManualClock(50_000);
  const database = useMigratedStore(engine, { clock });
  const keyRing = () => database.store.keyRing;

  it('has no secrets and no keys before the ring is created', async () => {
    expect(await keyRing().loadSecrets()).toBeNull();
    expect(await keyRing().listActiveSigningKeys()).toEqual([]);
  });

  it('creates the ring with its secrets and first signing key, and says so', async () => {
    expect(await keyRing().createRingIfAbsent({ secrets: 'sealed-secrets', firstKey: signingKey('k1'), createdAt: 1_000 })).toBe(true);
    expect(await keyRing().loadSecrets()).toBe('sealed-secrets');
    expect(await keyRing().listActiveSigningKeys()).toEqual([signingKey('k1')]);
  });

  it('returns false and inserts nothing (neither secrets nor key) when the ring exists', async () => {
    await keyRing().createRingIfAbsent({ secrets: 'first', firstKey: signingKey('k1'), createdAt: 1_000 });
    expect(await keyRing().createRingIfAbsent({ secrets: 'second', firstKey: signingKey('k2'), createdAt: 2_000 })).toBe(false);
    expect(await keyRing().loadSecrets()).toBe('first');
    expect((await keyRing().listActiveSigningKeys()).map((key) => key.kid)).toEqual(['k1']);
  });

  it('leaves no ring behind when its first key cannot be inserted (one transaction)', async () => {
    await keyRing().addSigningKey(signingKey('taken'));
    const failed = keyRing().createRingIfAbsent({ secrets: 's', firstKey: signingKey('taken'), createdAt: 1_000 });
    await expect(failed).rejects.toBeInstanceOf(StoreConflictError);
    expect(await keyRing().loadSecrets()).toBeNull();
  });

  it('lets exactly one of five concurrent calls on one store create the ring', async () => {
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map((index) =>
        keyRing().createRingIfAbsent({ secrets: `s${index}`, firstKey: signingKey(`k${index}`), createdAt: 1_000 }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await keyRing().loadSecrets()).toBe(`s${winner}`);
    expect((await keyRing().listActiveSigningKeys()).map((key) => key.kid)).toEqual([`k${winner}`]);
  });

  it('lets exactly one of five processes starting together, each with its own store, create the ring', async () => {
    const results = await inSeparateProcesses<boolean>(
      5,
      database.databaseUrl,
      `return store.keyRing.createRingIfAbsent({
         secrets: 's' + index,
         firstKey: { kid: 'k' + index, alg: 'EdDSA', publicJwk: '{}', privateJwk: 'sealed', createdAt: 1000, revokedAt: null },
         createdAt: 1000,
       });`,
      engine.tables,
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await keyRing().loadSecrets()).toBe(`s${winner}`);
    expect((await keyRing().listActiveSigningKeys()).map((key) => key.kid)).toEqual([`k${winner}`]);
  });

  it('lists active keys newest first, keys created at the same time by kid', async () => {
    await keyRing().addSigningKey(signingKey('b', 2_000));
    await keyRing().addSigningKey(signingKey('a', 1_000));
    await keyRing().addSigningKey(signingKey('d', 3_000));
    await keyRing().addSigningKey(signingKey('c', 2_000));
    await keyRing().addSigningKey(signingKey('B', 2_000));
    expect((await keyRing().listActiveSigningKeys()).map((key) => key.kid)).toEqual(['d', 'B', 'b', 'c', 'a']);
  });

  it('refuses a second key with the same kid as a conflict on "kid"', async () => {
    await keyRing().addSigningKey(signingKey('k1'));
    const error = await keyRing().addSigningKey(signingKey('k1', 2_000)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreConflictError);
    expect(error).toMatchObject({ field: 'kid' });
  });

  it('revokes an active key once: it leaves the active list, and revoking again or an unknown kid returns false', async () => {
    await keyRing().addSigningKey(signingKey('old', 1_000));
    await keyRing().addSigningKey(signingKey('new', 2_000));
    expect(await keyRing().revokeSigningKey('old', 5_000)).toBe(true);
    expect((await keyRing().listActiveSigningKeys()).map((key) => key.kid)).toEqual(['new']);
    expect(await keyRing().revokeSigningKey('old', 6_000)).toBe(false);
    expect(await keyRing().revokeSigningKey('missing', 6_000)).toBe(false);
  });

  it('appends a signing-key event when it revokes a key, at the store\'s time, and none when it revokes nothing', async () => {
    await keyRing().addSigningKey(signingKey('old', 1_000));
    clock.set(60_000);
    expect(await keyRing().revokeSigningKey('old', 5_000)).toBe(true);
    clock.set(61_000);
    expect(await keyRing().revokeSigningKey('old', 6_000)).toBe(false);
    expect(await keyRing().revokeSigningKey('missing', 6_000)).toBe(false);
    expect(await database.store.revocations.listSince(0)).toEqual([
      { id: expect.any(Number), kind: 'signing-key', subject: 'old', claimsStamp: null, securityStamp: null, at: 60_000 },
    ]);
  });
});
