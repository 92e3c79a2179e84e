import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import type { NewUser, SigningKeyRecord } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { executeRawSql } from './raw-sql.ts';

// Also with the tables under a prefix (and a schema): a representative set of the ports.
const engines = await testEnginesWithPrefixedTables();

function newUser(email: string): NewUser {
  return {
    email,
    normalizedEmail: email,
    userName: null,
    normalizedUserName: null,
    passwordHash: null,
    emailConfirmed: true,
    roles: ['editor'],
    claims: [{ type: 'dept', value: 'x' }],
    createdAt: 1,
  };
}

function signingKey(kid: string): SigningKeyRecord {
  return { kid, alg: 'EdDSA', publicJwk: '{}', privateJwk: 'sealed', createdAt: 1, revokedAt: null };
}

/**
 * The feed as a whole: reading and pruning, and the promise every writer keeps, that a change
 * commits with its event or not at all. Which write appends which event is pinned in the suites
 * of the writing ports (users, API keys, key ring).
 */
describe.each(engines)('RevocationStore on $label', (engine) => {
  const clock = new ManualClock(10_000);
  const database = useMigratedStore(engine, { clock });
  const revocations = () => database.store.revocations;
  const store = () => database.store;

  it('is empty before any revocation, and a new user is no revocation', async () => {
    await store().users.create(newUser('a'));
    expect(await revocations().listSince(0)).toEqual([]);
  });

  it('lists events at or after the given time, oldest first by id even when the clock went back', async () => {
    const ada = await store().users.create(newUser('a'));
    clock.set(5_000);
    await store().users.addRole(ada.id, 'auditor');
    clock.set(4_000);
    await store().apiKeys.create({ client: 'reports', publicId: 'pk_1', secretHash: 'h', createdAt: 1 });
    await store().apiKeys.revokeClient('reports', 4_000);
    clock.set(6_000);
    await store().keyRing.addSigningKey(signingKey('k1'));
    await store().keyRing.revokeSigningKey('k1', 6_000);

    const all = await revocations().listSince(0);
    expect(all).toEqual([
      { id: expect.any(Number), kind: 'user', subject: String(ada.id), claimsStamp: 2, securityStamp: 1, at: 5_000 },
      { id: expect.any(Number), kind: 'api-key', subject: 'pk_1', claimsStamp: null, securityStamp: null, at: 4_000 },
      { id: expect.any(Number), kind: 'signing-key', subject: 'k1', claimsStamp: null, securityStamp: null, at: 6_000 },
    ]);
    expect(all.map((event) => event.id)).toEqual([...all.map((event) => event.id)].sort((a, b) => a - b));
    expect((await revocations().listSince(4_000)).map((event) => event.kind)).toEqual(['user', 'api-key', 'signing-key']);
    expect((await revocations().listSince(5_000)).map((event) => event.kind)).toEqual(['user', 'signing-key']);
    expect((await revocations().listSince(6_000)).map((event) => event.kind)).toEqual(['signing-key']);
    expect(await revocations().listSince(6_001)).toEqual([]);
  });

  it('prunes events older than the given time and returns how many', async () => {
    const ada = await store().users.create(newUser('a'));
    for (const [at, role] of [[1_000, 'r1'], [2_000, 'r2'], [3_000, 'r3']] as const) {
      clock.set(at);
      await store().users.addRole(ada.id, role);
    }
    expect(await revocations().prune(2_000)).toBe(1);
    expect((await revocations().listSince(0)).map((event) => event.at)).toEqual([2_000, 3_000]);
    expect(await revocations().prune(2_000)).toBe(0);
  });

  it('lets no change happen whose event cannot be written (the feed\'s table is gone)', async () => {
    const ada = await store().users.create(newUser('a'));
    const { family } = await store().refreshTokens.createFamily({ userId: ada.id, securityStamp: 1, tokenHash: 't0', createdAt: 1, expiresAt: 100_000 });
    const session = await store().sessions.create({ userId: ada.id, tokenHash: 's0', securityStamp: 1, persistent: false, method: 'password', createdAt: 1, expiresAt: 100_000 });
    await store().apiKeys.create({ client: 'reports', publicId: 'pk_1', secretHash: 'h', createdAt: 1 });
    await store().keyRing.addSigningKey(signingKey('k1'));
    await executeRawSql(database.databaseUrl, `drop table ${engine.table('revocations')}`);

    await expect(store().users.addRole(ada.id, 'auditor')).rejects.toThrow();
    await expect(store().users.removeRole(ada.id, 'editor')).rejects.toThrow();
    await expect(store().users.addClaim(ada.id, { type: 'dept', value: 'y' })).rejects.toThrow();
    await expect(store().users.removeClaim(ada.id, { type: 'dept', value: 'x' })).rejects.toThrow();
    await expect(store().users.setAdminLock(ada.id, true)).rejects.toThrow();
    await expect(store().users.delete(ada.id)).rejects.toThrow();
    await expect(store().apiKeys.revokeClient('reports', 20_000)).rejects.toThrow();
    await expect(store().keyRing.revokeSigningKey('k1', 20_000)).rejects.toThrow();
    await expect(store().refreshTokens.revokeFamily(family.id, 20_000)).rejects.toThrow();
    await expect(store().userSessions.end(ada.id, { kind: 'token', id: family.id }, 20_000)).rejects.toThrow();
    await expect(store().userSessions.end(ada.id, { kind: 'cookie', id: session.id }, 20_000)).rejects.toThrow();
    await expect(store().userSessions.endAll(ada.id, 20_000)).rejects.toThrow();

    expect(await store().users.findById(ada.id)).toMatchObject({
      roles: ['editor'],
      claims: [{ type: 'dept', value: 'x' }],
      lockedByAdmin: false,
      securityStamp: 1,
      claimsStamp: 1,
    });
    expect((await store().refreshTokens.find('t0'))?.family.revokedAt).toBeNull();
    expect(await store().sessions.findByTokenHash('s0', 20_000)).toMatchObject({ id: session.id });
    expect(await store().apiKeys.findByPublicId('pk_1')).toMatchObject({ revokedAt: null });
    expect((await store().keyRing.listActiveSigningKeys()).map((key) => key.kid)).toEqual(['k1']);
    // Writes that append nothing are untouched by the missing feed.
    expect(await store().users.setAdminLock(ada.id, false)).toBe(true);
  });

  it('appends no event when the rest of the write fails (an admin lock whose families cannot be revoked)', async () => {
    const ada = await store().users.create(newUser('a'));
    await executeRawSql(database.databaseUrl, `drop table ${engine.table('refresh_tokens')}`);
    await executeRawSql(database.databaseUrl, `drop table ${engine.table('refresh_families')}`);

    await expect(store().users.setAdminLock(ada.id, true)).rejects.toThrow();
    expect(await revocations().listSince(0)).toEqual([]);
    expect(await store().users.findById(ada.id)).toMatchObject({ lockedByAdmin: false, securityStamp: 1, claimsStamp: 1 });
  });
});
