import { describe, expect, it } from 'vitest';
import { type NewPasskey, StoreConflictError } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { inSeparateProcesses } from './separate-processes.ts';

const engines = await testEnginesWithPrefixedTables();

describe.each(engines)('PasskeyStore on $label', (engine) => {
  const database = useMigratedStore(engine);
  const passkeys = () => database.store.passkeys;

  let serial = 0;
  const newUser = (passwordHash: string | null = null) => {
    serial += 1;
    const email = `person${serial}@example.com`;
    return database.store.users.create({ email, normalizedEmail: email, userName: null, normalizedUserName: null, passwordHash, emailConfirmed: true, createdAt: 1 });
  };
  const newPasskey = (userId: number, overrides: Partial<NewPasskey> = {}): NewPasskey => {
    serial += 1;
    return {
      userId,
      credentialId: `cred-${serial}`,
      publicKey: 'pQECAyYgASFYIA',
      counter: 0,
      transports: ['internal', 'hybrid'],
      backedUp: false,
      deviceType: 'singleDevice',
      name: `Key ${serial}`,
      createdAt: 1_000,
      ...overrides,
    };
  };

  it('adds, finds by credential id, lists oldest first and renames', async () => {
    const user = await newUser();
    const first = await passkeys().add(newPasskey(user.id, { counter: 7, backedUp: true, deviceType: 'multiDevice' }));
    const second = await passkeys().add(newPasskey(user.id, { transports: [] }));
    expect(first).toMatchObject({ userId: user.id, counter: 7, backedUp: true, deviceType: 'multiDevice', transports: ['internal', 'hybrid'], lastUsedAt: null });
    expect(await passkeys().findByCredentialId(first.credentialId)).toEqual(first);
    expect(await passkeys().findByCredentialId('nobody')).toBeNull();
    expect((await passkeys().listForUser(user.id)).map((passkey) => passkey.credentialId)).toEqual([first.credentialId, second.credentialId]);
    expect((await passkeys().findByCredentialId(second.credentialId))!.transports).toEqual([]);

    const other = await newUser();
    expect(await passkeys().rename(other.id, first.credentialId, 'Stolen')).toBe(false);
    expect(await passkeys().rename(user.id, first.credentialId, 'Laptop')).toBe(true);
    expect((await passkeys().findByCredentialId(first.credentialId))!.name).toBe('Laptop');
  });

  it('refuses a credential id registered already, to anyone', async () => {
    const user = await newUser();
    const other = await newUser();
    const passkey = await passkeys().add(newPasskey(user.id));
    await expect(passkeys().add(newPasskey(other.id, { credentialId: passkey.credentialId }))).rejects.toBeInstanceOf(StoreConflictError);
  });

  it('records a use only when the counter goes up, or stays 0', async () => {
    const user = await newUser();
    const counting = await passkeys().add(newPasskey(user.id, { counter: 5 }));
    expect(await passkeys().recordUse(counting.credentialId, { counter: 5, backedUp: true, usedAt: 2_000 })).toBe(false);
    expect(await passkeys().recordUse(counting.credentialId, { counter: 4, backedUp: true, usedAt: 2_000 })).toBe(false);
    expect(await passkeys().recordUse(counting.credentialId, { counter: 0, backedUp: true, usedAt: 2_000 })).toBe(false);
    expect(await passkeys().findByCredentialId(counting.credentialId)).toMatchObject({ counter: 5, backedUp: false, lastUsedAt: null });
    expect(await passkeys().recordUse(counting.credentialId, { counter: 6, backedUp: true, usedAt: 2_000 })).toBe(true);
    expect(await passkeys().findByCredentialId(counting.credentialId)).toMatchObject({ counter: 6, backedUp: true, lastUsedAt: 2_000 });

    const zero = await passkeys().add(newPasskey(user.id));
    expect(await passkeys().recordUse(zero.credentialId, { counter: 0, backedUp: false, usedAt: 3_000 })).toBe(true);
    expect(await passkeys().recordUse(zero.credentialId, { counter: 0, backedUp: false, usedAt: 4_000 })).toBe(true);
    expect((await passkeys().findByCredentialId(zero.credentialId))!.lastUsedAt).toBe(4_000);
    expect(await passkeys().recordUse('nobody', { counter: 1, backedUp: false, usedAt: 1 })).toBe(false);
  });

  it('removes a passkey as a security change, unless it is the last way in', async () => {
    const passwordless = await newUser();
    const first = await passkeys().add(newPasskey(passwordless.id));
    const second = await passkeys().add(newPasskey(passwordless.id));
    const other = await newUser();
    expect(await passkeys().removeUnlessLastWayIn(other.id, first.credentialId, 10)).toBe('not-found');
    expect(await passkeys().removeUnlessLastWayIn(passwordless.id, first.credentialId, 10)).toBe('removed');
    expect((await database.store.users.findById(passwordless.id))!.securityStamp).toBe(passwordless.securityStamp + 1);
    expect(await passkeys().removeUnlessLastWayIn(passwordless.id, first.credentialId, 10)).toBe('not-found');
    expect(await passkeys().removeUnlessLastWayIn(passwordless.id, second.credentialId, 10)).toBe('last-way-in');
    expect(await passkeys().listForUser(passwordless.id)).toHaveLength(1);

    // An external login is a way in too; and a password.
    await database.store.externalLogins.add({ userId: passwordless.id, provider: 'acme', subject: `s-${passwordless.id}`, createdAt: 1 });
    expect(await passkeys().removeUnlessLastWayIn(passwordless.id, second.credentialId, 10)).toBe('removed');
    const withPassword = await newUser('$argon2id$x');
    const only = await passkeys().add(newPasskey(withPassword.id));
    expect(await passkeys().removeUnlessLastWayIn(withPassword.id, only.credentialId, 10)).toBe('removed');
  });

  it('counts passkeys as a way in when the last external login is unlinked', async () => {
    const user = await newUser();
    await database.store.externalLogins.add({ userId: user.id, provider: 'acme', subject: `p-${user.id}`, createdAt: 1 });
    const passkey = await passkeys().add(newPasskey(user.id));
    expect(await database.store.externalLogins.removeUnlessLastWayIn(user.id, 'acme')).toBe('removed');
    expect(await passkeys().removeUnlessLastWayIn(user.id, passkey.credentialId, 10)).toBe('last-way-in');
  });

  it('gives a challenge once, only for its purpose and before it expires', async () => {
    const user = await newUser();
    const challenge = { id: 'a'.repeat(64), purpose: 'registration' as const, userId: user.id, binding: 'session:x', name: 'Laptop', expiresAt: 5_000 };
    await passkeys().issueChallenge(challenge);
    expect(await passkeys().spendChallenge(challenge.id, 'registration', 4_999)).toEqual(challenge);
    expect(await passkeys().spendChallenge(challenge.id, 'registration', 4_999)).toBeNull();

    await passkeys().issueChallenge({ ...challenge, id: 'b'.repeat(64) });
    // Presented for the other ceremony: refused, and spent all the same.
    expect(await passkeys().spendChallenge('b'.repeat(64), 'authentication', 1)).toBeNull();
    expect(await passkeys().spendChallenge('b'.repeat(64), 'registration', 1)).toBeNull();

    await passkeys().issueChallenge({ id: 'c'.repeat(64), purpose: 'authentication', userId: null, binding: null, name: null, expiresAt: 5_000 });
    expect(await passkeys().spendChallenge('c'.repeat(64), 'authentication', 5_000)).toBeNull();

    await passkeys().issueChallenge({ id: 'd'.repeat(64), purpose: 'authentication', userId: null, binding: null, name: null, expiresAt: 5_000 });
    await passkeys().issueChallenge({ id: 'e'.repeat(64), purpose: 'authentication', userId: null, binding: null, name: null, expiresAt: 9_000 });
    expect(await passkeys().pruneChallenges(6_000)).toBe(1);
    expect(await passkeys().spendChallenge('e'.repeat(64), 'authentication', 6_000)).not.toBeNull();
  });

  it('gives one challenge to exactly one of two processes taking it at once, round after round', async () => {
    const rounds = 30;
    const ids = Array.from({ length: rounds }, (_, round) => `race-${round}-`.padEnd(64, 'x'));
    for (const id of ids) await passkeys().issueChallenge({ id, purpose: 'authentication', userId: null, binding: null, name: null, expiresAt: Date.now() + 60_000 });
    const outcomes = await inSeparateProcesses<boolean[]>(
      2,
      database.databaseUrl,
      `const taken = [];
       for (const id of ${JSON.stringify(ids)}) taken.push((await store.passkeys.spendChallenge(id, 'authentication', Date.now())) !== null);
       return taken;`,
      engine.tables,
    );
    for (let round = 0; round < rounds; round++) expect([outcomes[0]![round], outcomes[1]![round]].sort()).toEqual([false, true]);
  });

  it('goes with its user, challenges included', async () => {
    const user = await newUser();
    const passkey = await passkeys().add(newPasskey(user.id));
    await passkeys().issueChallenge({ id: 'f'.repeat(64), purpose: 'registration', userId: user.id, binding: 'user:1', name: null, expiresAt: 9_000 });
    await database.store.users.delete(user.id);
    expect(await passkeys().findByCredentialId(passkey.credentialId)).toBeNull();
    expect(await passkeys().spendChallenge('f'.repeat(64), 'registration', 1)).toBeNull();
  });
});
