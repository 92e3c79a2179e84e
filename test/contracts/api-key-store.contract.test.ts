import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { StoreConflictError } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('ApiKeyStore on $engine', (engine) => {
  const clock = new ManualClock(50_000);
  const database = useMigratedStore(engine, { clock });
  const apiKeys = () => database.store.apiKeys;
  const key = (client: string, publicId: string, createdAt = 1_000) =>
    apiKeys().create({ client, publicId, secretHash: `hash-of-${publicId}`, createdAt });

  it('creates a key and finds it by public id, and returns null for an unknown public id', async () => {
    const created = await key('reports', 'pk_1');
    expect(created).toEqual({
      id: expect.any(Number),
      client: 'reports',
      publicId: 'pk_1',
      secretHash: 'hash-of-pk_1',
      createdAt: 1_000,
      revokedAt: null,
    });
    expect(await apiKeys().findByPublicId('pk_1')).toEqual(created);
    expect(await apiKeys().findByPublicId('pk_unknown')).toBeNull();
  });

  it('refuses a second key with the same public id as a conflict', async () => {
    await key('reports', 'pk_1');
    const error = await key('billing', 'pk_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreConflictError);
    expect(error).toMatchObject({ field: 'client' });
  });

  it('lets one client hold several keys', async () => {
    await key('reports', 'pk_1');
    await key('reports', 'pk_2');
    expect(await apiKeys().listClients()).toEqual([{ client: 'reports', activeKeys: 2, createdAt: 1_000 }]);
  });

  it('lists clients by name (byte order) with their active keys and first creation time, revoked-only clients included', async () => {
    expect(await apiKeys().listClients()).toEqual([]);
    await key('reports', 'pk_1', 3_000);
    await key('reports', 'pk_2', 2_000);
    await key('Zeta', 'pk_3', 5_000);
    await key('billing', 'pk_4', 4_000);
    await apiKeys().revokeClient('billing', 6_000);
    expect(await apiKeys().listClients()).toEqual([
      { client: 'Zeta', activeKeys: 1, createdAt: 5_000 },
      { client: 'billing', activeKeys: 0, createdAt: 4_000 },
      { client: 'reports', activeKeys: 2, createdAt: 2_000 },
    ]);
  });

  it('revokes every active key of a client, returns how many, and shows revokedAt on each', async () => {
    await key('reports', 'pk_1');
    await key('reports', 'pk_2');
    await key('billing', 'pk_3');
    expect(await apiKeys().revokeClient('reports', 7_000)).toBe(2);
    expect(await apiKeys().findByPublicId('pk_1')).toMatchObject({ revokedAt: 7_000 });
    expect(await apiKeys().findByPublicId('pk_2')).toMatchObject({ revokedAt: 7_000 });
    expect(await apiKeys().findByPublicId('pk_3')).toMatchObject({ revokedAt: null });
  });

  it('returns 0 when revoking a client again or an unknown client, and keeps the first revocation time', async () => {
    await key('reports', 'pk_1');
    await apiKeys().revokeClient('reports', 7_000);
    expect(await apiKeys().revokeClient('reports', 9_000)).toBe(0);
    expect(await apiKeys().revokeClient('nobody', 9_000)).toBe(0);
    expect(await apiKeys().findByPublicId('pk_1')).toMatchObject({ revokedAt: 7_000 });
  });

  it('appends one api-key event per key it revokes, at the store\'s time, and none when it revokes nothing', async () => {
    await key('reports', 'pk_1');
    await key('billing', 'pk_2');
    await key('reports', 'pk_3');
    clock.set(60_000);
    expect(await apiKeys().revokeClient('reports', 7_000)).toBe(2);
    await key('reports', 'pk_4');
    clock.set(61_000);
    expect(await apiKeys().revokeClient('reports', 7_500)).toBe(1);
    expect(await apiKeys().revokeClient('reports', 8_000)).toBe(0);
    expect(await apiKeys().revokeClient('nobody', 8_000)).toBe(0);
    const event = (publicId: string, at: number) => ({ id: expect.any(Number), kind: 'api-key', subject: publicId, claimsStamp: null, securityStamp: null, at });
    expect(await database.store.revocations.listSince(0)).toEqual([event('pk_1', 60_000), event('pk_3', 60_000), event('pk_4', 61_000)]);
  });
});
