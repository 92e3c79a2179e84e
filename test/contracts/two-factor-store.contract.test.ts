import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('TwoFactorStore on $engine', (engine) => {
  const database = useMigratedStore(engine);
  const twoFactor = () => database.store.twoFactor;

  let emails = 0;
  const createUser = async () => {
    emails += 1;
    const email = `user${emails}@example.com`;
    const user = await database.store.users.create({
      email,
      normalizedEmail: email,
      userName: null,
      normalizedUserName: null,
      passwordHash: null,
      emailConfirmed: true,
      createdAt: 1,
    });
    return user;
  };

  it('enables only with the pending key, as a security change that replaces the recovery codes', async () => {
    const user = await createUser();
    expect(user.twoFactorEnabled).toBe(false);
    await twoFactor().setPendingKey(user.id, 'sealed-1');
    expect(await twoFactor().enable(user.id, { sealedKey: 'sealed-0', step: 5, recoveryCodeHashes: ['a'], now: 10 })).toBe(false);
    expect(await twoFactor().enable(user.id, { sealedKey: 'sealed-1', step: 5, recoveryCodeHashes: ['a', 'b'], now: 10 })).toBe(true);
    expect(await twoFactor().authenticatorKeys(user.id)).toEqual({ activeKey: 'sealed-1', pendingKey: null, lastStep: 5 });
    const enabled = await database.store.users.findById(user.id);
    expect(enabled?.twoFactorEnabled).toBe(true);
    expect(enabled?.securityStamp).toBe(user.securityStamp + 1);
    expect(await twoFactor().countRecoveryCodes(user.id)).toBe(2);

    expect(await twoFactor().disable(user.id, 20)).toBe(true);
    expect(await twoFactor().disable(user.id, 21)).toBe(false);
    const disabled = await database.store.users.findById(user.id);
    expect(disabled?.twoFactorEnabled).toBe(false);
    expect(disabled?.securityStamp).toBe(user.securityStamp + 2);
    expect(await twoFactor().authenticatorKeys(user.id)).toEqual({ activeKey: null, pendingKey: null, lastStep: null });
    expect(await twoFactor().countRecoveryCodes(user.id)).toBe(0);
  });

  it('accepts each time step once, and never an earlier one, also under concurrent uses', async () => {
    const user = await createUser();
    await twoFactor().setPendingKey(user.id, 'k');
    await twoFactor().enable(user.id, { sealedKey: 'k', step: 100, recoveryCodeHashes: [], now: 1 });
    expect(await twoFactor().acceptStep(user.id, 100)).toBe(false);
    expect(await twoFactor().acceptStep(user.id, 99)).toBe(false);
    const results = await Promise.all(Array.from({ length: 10 }, () => twoFactor().acceptStep(user.id, 101)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('redeems each recovery code once, also under concurrent uses', async () => {
    const user = await createUser();
    await twoFactor().replaceRecoveryCodes(user.id, ['h1', 'h2']);
    const results = await Promise.all(Array.from({ length: 10 }, () => twoFactor().redeemRecoveryCode(user.id, 'h1', 5)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await twoFactor().countRecoveryCodes(user.id)).toBe(1);
    const other = await createUser();
    expect(await twoFactor().redeemRecoveryCode(other.id, 'h2', 5)).toBe(false);
    await twoFactor().replaceRecoveryCodes(user.id, ['h3']);
    expect(await twoFactor().redeemRecoveryCode(user.id, 'h2', 6)).toBe(false);
    expect(await twoFactor().redeemRecoveryCode(user.id, 'h3', 6)).toBe(true);
  });

  it('uses a sent code once, before it expires, and voids older codes of the same purpose', async () => {
    const user = await createUser();
    const issue = (codeHash: string, createdAt: number) =>
      twoFactor().issueCode({ userId: user.id, purpose: 'two-factor-email', codeHash, phoneNumber: null, createdAt, expiresAt: createdAt + 300 });
    await issue('c1', 1_000);
    await issue('c2', 1_010);
    const use = (codeHash: string, now: number, purpose: 'two-factor-email' | 'two-factor-phone' = 'two-factor-email') =>
      twoFactor().useCode({ userId: user.id, purpose, codeHash, now });
    expect(await use('c1', 1_020)).toBeUndefined();
    expect(await use('c2', 1_020, 'two-factor-phone')).toBeUndefined();
    expect(await use('c2', 1_020)).toEqual({ phoneNumber: null });
    expect(await use('c2', 1_021)).toBeUndefined();
    await issue('c3', 2_000);
    expect(await use('c3', 2_300)).toBeUndefined();
  });

  it('confirms a phone number only while it is still the one the code was sent for', async () => {
    const user = await createUser();
    await twoFactor().setPhoneNumber(user.id, '+14155550100');
    await twoFactor().issueCode({ userId: user.id, purpose: 'confirm-phone', codeHash: 'p', phoneNumber: '+14155550100', createdAt: 1, expiresAt: 500 });
    expect(await twoFactor().useCode({ userId: user.id, purpose: 'confirm-phone', codeHash: 'p', now: 2 })).toEqual({ phoneNumber: '+14155550100' });
    await twoFactor().setPhoneNumber(user.id, '+14155550199');
    expect(await twoFactor().confirmPhoneNumber(user.id, '+14155550100')).toBe(false);
    expect(await twoFactor().confirmPhoneNumber(user.id, '+14155550199')).toBe(true);
    const found = await database.store.users.findById(user.id);
    expect(found).toMatchObject({ phoneNumber: '+14155550199', phoneConfirmed: true });
  });
});
