import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { executeRawSql } from './raw-sql.ts';

const engines = await testEngines();

describe.each(engines)('AccountCodeStore on $engine', (engine) => {
  const clock = new ManualClock(50_000);
  const database = useMigratedStore(engine, { clock });
  const codes = () => database.store.accountCodes;

  let emails = 0;
  const createUser = async (emailConfirmed = false) => {
    emails += 1;
    const email = `user${emails}@example.com`;
    return database.store.users.create({
      email,
      normalizedEmail: email,
      userName: null,
      normalizedUserName: null,
      passwordHash: 'old-hash',
      emailConfirmed,
      createdAt: 1,
    });
  };
  const issue = (userId: number, codeHash: string, purpose: 'confirm-email' | 'reset-password') =>
    codes().issue({ userId, purpose, codeHash, createdAt: 1_000, expiresAt: 10_000 });

  describe('confirmation', () => {
    it('confirms the e-mail once, and says confirmed again for the same code (idempotent)', async () => {
      const user = await createUser();
      await issue(user.id, 'c1', 'confirm-email');
      expect(await codes().confirmEmail({ userId: user.id, codeHash: 'c1', now: 2_000 })).toBe('confirmed');
      expect((await database.store.users.findById(user.id))?.emailConfirmed).toBe(true);
      expect(await codes().confirmEmail({ userId: user.id, codeHash: 'c1', now: 20_000 })).toBe('confirmed');
      // No password was pending: the hash and the stamps are untouched.
      const after = await database.store.users.findById(user.id);
      expect(after).toMatchObject({ passwordHash: 'old-hash', securityStamp: user.securityStamp });
    });

    it('refuses an unknown, expired, voided or another user’s code, and changes nothing', async () => {
      const user = await createUser();
      const other = await createUser();
      await issue(user.id, 'old', 'confirm-email');
      await issue(user.id, 'new', 'confirm-email'); // voids "old"
      await issue(other.id, 'theirs', 'confirm-email');
      expect(await codes().confirmEmail({ userId: user.id, codeHash: 'nope', now: 2_000 })).toBe('invalid');
      expect(await codes().confirmEmail({ userId: user.id, codeHash: 'old', now: 2_000 })).toBe('invalid');
      expect(await codes().confirmEmail({ userId: user.id, codeHash: 'theirs', now: 2_000 })).toBe('invalid');
      expect(await codes().confirmEmail({ userId: user.id, codeHash: 'new', now: 10_000 })).toBe('invalid');
      expect((await database.store.users.findById(user.id))?.emailConfirmed).toBe(false);
      expect((await database.store.users.findById(other.id))?.emailConfirmed).toBe(false);
    });

    it('never sets a password, not even one an older version left pending on the code', async () => {
      const user = await createUser();
      await issue(user.id, 'c1', 'confirm-email');
      await executeRawSql(database.databaseUrl, "UPDATE account_codes SET pending_password_hash = 'planted-hash' WHERE code_hash = 'c1'");
      const results = await Promise.all(Array.from({ length: 5 }, () => codes().confirmEmail({ userId: user.id, codeHash: 'c1', now: 2_000 })));
      expect(results.every((result) => result === 'confirmed')).toBe(true);
      expect(await database.store.users.findById(user.id)).toMatchObject({ passwordHash: 'old-hash', securityStamp: user.securityStamp, emailConfirmed: true });
    });
  });

  describe('password reset', () => {
    it('sets the password once, bumps the stamps and revokes the refresh families', async () => {
      const user = await createUser(true);
      const family = await database.store.refreshTokens.createFamily({ userId: user.id, securityStamp: user.securityStamp, tokenHash: 'rt', createdAt: 1_000, expiresAt: 100_000 });
      await issue(user.id, 'r1', 'reset-password');
      expect(await codes().resetPassword({ userId: user.id, codeHash: 'r1', passwordHash: 'new-hash', now: 2_000 })).toBe(true);
      const after = await database.store.users.findById(user.id);
      expect(after).toMatchObject({ passwordHash: 'new-hash', securityStamp: user.securityStamp + 1, claimsStamp: user.claimsStamp + 1 });
      expect((await database.store.refreshTokens.find('rt'))?.family).toMatchObject({ id: family.family.id, revokedAt: 2_000 });
      expect(await codes().resetPassword({ userId: user.id, codeHash: 'r1', passwordHash: 'again', now: 3_000 })).toBe(false);
      expect((await database.store.users.findById(user.id))?.passwordHash).toBe('new-hash');
    });

    it('removes the passkeys and external logins the reset asks to, with the password, and those of no one else', async () => {
      const waysIn = async (userId: number, credentialId: string) => {
        await database.store.passkeys.add({ userId, credentialId, publicKey: 'pQECAyYgASFYIA', counter: 0, transports: [], backedUp: false, deviceType: 'singleDevice', name: 'Key', createdAt: 1_000 });
        await database.store.externalLogins.add({ userId, provider: 'acme', subject: `acme-${userId}`, createdAt: 1_000 });
      };
      const user = await createUser(true);
      const other = await createUser(true);
      await waysIn(user.id, `cred-${user.id}`);
      await waysIn(other.id, `cred-${other.id}`);
      await issue(user.id, 'r-wrong', 'reset-password');
      // A refused code removes nothing.
      expect(await codes().resetPassword({ userId: user.id, codeHash: 'nope', passwordHash: 'x', now: 2_000, remove: { passkeys: true, externalLogins: true } })).toBe(false);
      expect(await database.store.passkeys.listForUser(user.id)).toHaveLength(1);
      expect(await codes().resetPassword({ userId: user.id, codeHash: 'r-wrong', passwordHash: 'new-hash', now: 2_000, remove: { passkeys: true, externalLogins: true } })).toBe(true);
      expect(await database.store.passkeys.listForUser(user.id)).toEqual([]);
      expect(await database.store.externalLogins.listForUser(user.id)).toEqual([]);
      expect(await database.store.passkeys.listForUser(other.id)).toHaveLength(1);
      expect(await database.store.externalLogins.listForUser(other.id)).toHaveLength(1);
    });

    it('lifts an automatic lockout, and leaves an admin lock in place', async () => {
      const locked = await createUser(true);
      await database.store.users.recordFailedSignIn(locked.id, { maxAttempts: 1, lockoutEnd: 900_000, now: 1_500 });
      await issue(locked.id, 'r-locked', 'reset-password');
      expect(await codes().resetPassword({ userId: locked.id, codeHash: 'r-locked', passwordHash: 'new-hash', now: 2_000 })).toBe(true);
      expect(await database.store.users.findById(locked.id)).toMatchObject({ lockoutEnd: null, lockedByAdmin: false });

      const banned = await createUser(true);
      await database.store.users.setAdminLock(banned.id, true);
      await issue(banned.id, 'r-banned', 'reset-password');
      expect(await codes().resetPassword({ userId: banned.id, codeHash: 'r-banned', passwordHash: 'new-hash', now: 2_000 })).toBe(true);
      expect(await database.store.users.findById(banned.id)).toMatchObject({ lockedByAdmin: true });
    });

    it('refuses a wrong, voided, expired, another user’s or a confirmation code', async () => {
      const user = await createUser(true);
      const other = await createUser(true);
      await issue(user.id, 'old', 'reset-password');
      await issue(user.id, 'new', 'reset-password');
      await issue(user.id, 'confirm', 'confirm-email');
      await issue(other.id, 'theirs', 'reset-password');
      for (const [codeHash, now] of [['nope', 2_000], ['old', 2_000], ['confirm', 2_000], ['theirs', 2_000], ['new', 10_000]] as const) {
        expect(await codes().resetPassword({ userId: user.id, codeHash, passwordHash: 'x', now }), codeHash).toBe(false);
      }
      expect((await database.store.users.findById(user.id))?.passwordHash).toBe('old-hash');
    });

    it('lets exactly one of concurrent resets with one code succeed', async () => {
      const user = await createUser(true);
      await issue(user.id, 'r1', 'reset-password');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => codes().resetPassword({ userId: user.id, codeHash: 'r1', passwordHash: `hash-${i}`, now: 2_000 })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await database.store.users.findById(user.id))?.securityStamp).toBe(user.securityStamp + 1);
    });

    it('goes with the user', async () => {
      const user = await createUser(true);
      await issue(user.id, 'r1', 'reset-password');
      await database.store.users.delete(user.id);
      expect(await codes().resetPassword({ userId: user.id, codeHash: 'r1', passwordHash: 'x', now: 2_000 })).toBe(false);
    });
  });
});
