import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createStore } from '../../src/store/create-store.ts';
import { StoreConflictError, type NewUser, type Store } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { inSeparateProcesses } from './separate-processes.ts';

// Also with the tables under a prefix (and a schema): a representative set of the ports.
const engines = await testEnginesWithPrefixedTables();

function newUser(overrides: Partial<NewUser> = {}): NewUser {
  return {
    email: 'Ada@Example.com',
    normalizedEmail: 'ada@example.com',
    userName: 'Ada',
    normalizedUserName: 'ada',
    passwordHash: '$argon2id$hash',
    emailConfirmed: true,
    createdAt: 1_000,
    ...overrides,
  };
}

describe.each(engines)('UserStore on $label', (engine) => {
  const clock = new ManualClock(50_000);
  const database = useMigratedStore(engine, { clock });
  const users = () => database.store.users;
  const feed = () => database.store.revocations.listSince(0);

  describe('create and find', () => {
    it('creates a user with roles sorted by name, claims in insertion order and both stamps at 1', async () => {
      const user = await users().create(
        newUser({ roles: ['writer', 'Admin', 'admin'], claims: [{ type: 'dept', value: 'x' }, { type: 'age', value: '30' }] }),
      );
      expect(user).toEqual({
        id: expect.any(Number),
        email: 'Ada@Example.com',
        userName: 'Ada',
        passwordHash: '$argon2id$hash',
        emailConfirmed: true,
        securityStamp: 1,
        claimsStamp: 1,
        lockoutEnd: null,
        lockedByAdmin: false,
        accessFailedCount: 0,
        createdAt: 1_000,
        roles: ['Admin', 'admin', 'writer'],
        claims: [
          { type: 'dept', value: 'x' },
          { type: 'age', value: '30' },
        ],
        twoFactorEnabled: false,
        phoneNumber: null,
        phoneConfirmed: false,
        twoFactorSpentThrough: null,
        activeOrganizationId: null,
        language: null,
      });
      expect(await users().findById(user.id)).toEqual(user);
    });

    it('keeps a null user name, a null password hash and an unconfirmed e-mail as given', async () => {
      const user = await users().create(
        newUser({ userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: false }),
      );
      expect(user).toMatchObject({ userName: null, passwordHash: null, emailConfirmed: false, roles: [], claims: [] });
    });

    it('finds a user by normalized e-mail and by normalized user name, and returns null for unknown ones', async () => {
      const user = await users().create(newUser());
      expect((await users().findByNormalizedEmail('ada@example.com'))?.id).toBe(user.id);
      expect((await users().findByNormalizedUserName('ada'))?.id).toBe(user.id);
      expect(await users().findByNormalizedEmail('Ada@Example.com')).toBeNull();
      expect(await users().findByNormalizedUserName('nobody')).toBeNull();
      expect(await users().findById(user.id + 1000)).toBeNull();
    });

    it('refuses a second user with the same normalized e-mail as a conflict on "email"', async () => {
      await users().create(newUser());
      const error = await users()
        .create(newUser({ email: 'ADA@example.COM', userName: 'other', normalizedUserName: 'other' }))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect(error).toMatchObject({ field: 'email' });
    });

    it('refuses a second user with the same normalized user name as a conflict on "userName"', async () => {
      await users().create(newUser());
      const error = await users()
        .create(newUser({ email: 'b@example.com', normalizedEmail: 'b@example.com', userName: 'ADA' }))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect(error).toMatchObject({ field: 'userName' });
    });

    it('lets any number of users go without a user name', async () => {
      for (const name of ['a', 'b', 'c']) {
        await users().create(newUser({ email: name, normalizedEmail: name, userName: null, normalizedUserName: null }));
      }
      expect(await users().list()).toHaveLength(3);
    });

    it('creates nothing at all when one of the new user\'s claims repeats another (the transaction rolls back)', async () => {
      const failed = users().create(
        newUser({
          roles: ['brand-new-role'],
          claims: [
            { type: 'dept', value: 'x' },
            { type: 'dept', value: 'x' },
          ],
        }),
      );
      await expect(failed).rejects.toThrow();
      expect(await users().list()).toEqual([]);
      // The e-mail and user name are free again: no half-created user holds them.
      const user = await users().create(newUser({ roles: ['brand-new-role'] }));
      expect(user.roles).toEqual(['brand-new-role']);
    });

    it('lists every user by id, each with its own roles and claims, and an empty list when there are none', async () => {
      expect(await users().list()).toEqual([]);
      const first = await users().create(newUser({ roles: ['a'], claims: [{ type: 't', value: '1' }] }));
      const second = await users().create(
        newUser({ email: 'b', normalizedEmail: 'b', userName: null, normalizedUserName: null, roles: ['b', 'a'] }),
      );
      const third = await users().create(newUser({ email: 'c', normalizedEmail: 'c', userName: 'c', normalizedUserName: 'c' }));
      const listed = await users().list();
      expect(listed.map((user) => user.id)).toEqual([first.id, second.id, third.id]);
      expect(listed.map((user) => user.roles)).toEqual([['a'], ['a', 'b'], []]);
      expect(listed.map((user) => user.claims)).toEqual([[{ type: 't', value: '1' }], [], []]);
    });
  });

  describe('search', () => {
    /** Users numbered in id order: e-mail `<name>@example.com`, the user name as given. */
    async function usersNamed(...names: [email: string, userName: string | null][]) {
      const created = [];
      for (const [email, userName] of names) {
        created.push(
          await users().create(newUser({ email, normalizedEmail: email.toLowerCase(), userName, normalizedUserName: userName?.toLowerCase() ?? null, roles: ['Editor'] })),
        );
      }
      return created;
    }
    const emailsOf = (page: { users: readonly { email: string }[] }) => page.users.map((user) => user.email);

    it('finds by part of the e-mail or the user name, in any case, by id, with roles and the total', async () => {
      const [ada, , grace] = await usersNamed(['Ada@Example.com', 'countess'], ['bob@example.com', 'Builder'], ['grace@navy.mil', 'ADAmant']);
      const page = await users().search({ query: 'ADA', limit: 10, offset: 0 });
      expect(page).toEqual({ users: [ada, grace], total: 2 });
      expect(page.users[0]!.roles).toEqual(['Editor']);
      expect(emailsOf(await users().search({ query: 'build', limit: 10, offset: 0 }))).toEqual(['bob@example.com']);
      expect(await users().search({ query: 'nobody', limit: 10, offset: 0 })).toEqual({ users: [], total: 0 });
    });

    it('pages with limit and offset, the total the same on every page; an empty query matches everyone', async () => {
      await usersNamed(['a1@example.com', null], ['a2@example.com', null], ['a3@example.com', null], ['b@other.org', null]);
      const first = await users().search({ query: 'example', limit: 2, offset: 0 });
      const second = await users().search({ query: 'example', limit: 2, offset: 2 });
      expect([emailsOf(first), first.total]).toEqual([['a1@example.com', 'a2@example.com'], 3]);
      expect([emailsOf(second), second.total]).toEqual([['a3@example.com'], 3]);
      expect((await users().search({ query: 'example', limit: 2, offset: 4 })).users).toEqual([]);
      const everyone = await users().search({ query: '', limit: 10, offset: 0 });
      expect([everyone.users.length, everyone.total]).toEqual([4, 4]);
    });

    it('takes % and _ as plain characters, not wildcards', async () => {
      await usersNamed(['plain@example.com', 'plain'], ['under_score@example.com', 'per%cent']);
      expect(emailsOf(await users().search({ query: '_', limit: 10, offset: 0 }))).toEqual(['under_score@example.com']);
      expect(emailsOf(await users().search({ query: '%', limit: 10, offset: 0 }))).toEqual(['under_score@example.com']);
      // As wildcards, `n_e` would match `plain@example.com` (`n@e`) and `under_score` (`nde`).
      expect(emailsOf(await users().search({ query: 'n_e', limit: 10, offset: 0 }))).toEqual([]);
    });
  });

  describe('roles and claims', () => {
    it('treats role names case-sensitively: "Admin" and "admin" are two roles', async () => {
      const user = await users().create(newUser({ roles: ['Admin'] }));
      expect(await users().addRole(user.id, 'admin')).toBe(true);
      expect(await users().removeRole(user.id, 'ADMIN')).toBe(false);
      expect((await users().findById(user.id))?.roles).toEqual(['Admin', 'admin']);
    });

    it('creates a role on first use, and a second user gets the same role', async () => {
      const ada = await users().create(newUser());
      const bob = await users().create(newUser({ email: 'b', normalizedEmail: 'b', userName: null, normalizedUserName: null }));
      expect(await users().addRole(ada.id, 'auditor')).toBe(true);
      expect(await users().addRole(bob.id, 'auditor')).toBe(true);
      expect((await users().list()).map((user) => user.roles)).toEqual([['auditor'], ['auditor']]);
    });

    it('bumps the claims stamp (not the security stamp) when a role is added, and tells the feed at the store\'s time', async () => {
      const user = await users().create(newUser());
      clock.set(70_000);
      expect(await users().addRole(user.id, 'editor')).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ securityStamp: 1, claimsStamp: 2 });
      expect(await feed()).toEqual([
        { id: expect.any(Number), kind: 'user', subject: String(user.id), claimsStamp: 2, securityStamp: 1, at: 70_000 },
      ]);
    });

    it('returns false for a role the user already has, without bumping the claims stamp again', async () => {
      const user = await users().create(newUser());
      expect(await users().addRole(user.id, 'editor')).toBe(true);
      expect(await users().addRole(user.id, 'editor')).toBe(false);
      expect((await users().findById(user.id))?.claimsStamp).toBe(2);
    });

    it('returns false when adding a role to a user that does not exist', async () => {
      expect(await users().addRole(4242, 'editor')).toBe(false);
    });

    it('removes a role and bumps the claims stamp, and returns false (no bump) when the user lacks it', async () => {
      const user = await users().create(newUser({ roles: ['editor'] }));
      expect(await users().removeRole(user.id, 'viewer')).toBe(false);
      expect((await users().findById(user.id))?.claimsStamp).toBe(1);
      expect(await users().removeRole(user.id, 'editor')).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ roles: [], claimsStamp: 2 });
      expect(await users().removeRole(user.id, 'editor')).toBe(false);
    });

    it('adds a claim once (false for the same pair, without a second bump) and keeps claims in insertion order', async () => {
      const user = await users().create(newUser({ claims: [{ type: 'dept', value: 'x' }] }));
      expect(await users().addClaim(user.id, { type: 'age', value: '30' })).toBe(true);
      expect(await users().addClaim(user.id, { type: 'age', value: '30' })).toBe(false);
      expect(await users().addClaim(user.id, { type: 'age', value: '31' })).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({
        claimsStamp: 3,
        claims: [
          { type: 'dept', value: 'x' },
          { type: 'age', value: '30' },
          { type: 'age', value: '31' },
        ],
      });
      expect(await users().addClaim(4242, { type: 'age', value: '30' })).toBe(false);
    });

    it('removes exactly the given claim pair and bumps the claims stamp, and returns false when there is none', async () => {
      const user = await users().create(
        newUser({ claims: [{ type: 'age', value: '30' }, { type: 'age', value: '31' }] }),
      );
      expect(await users().removeClaim(user.id, { type: 'age', value: '32' })).toBe(false);
      expect(await users().removeClaim(user.id, { type: 'age', value: '30' })).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ claimsStamp: 2, claims: [{ type: 'age', value: '31' }] });
    });
  });

  describe('locks and stamps', () => {
    it('bumps both stamps when an admin locks a user, and neither when the lock is lifted', async () => {
      const user = await users().create(newUser());
      clock.set(80_000);
      expect(await users().setAdminLock(user.id, true)).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ lockedByAdmin: true, securityStamp: 2, claimsStamp: 2 });
      expect(await feed()).toEqual([
        { id: expect.any(Number), kind: 'user', subject: String(user.id), claimsStamp: 2, securityStamp: 2, at: 80_000 },
      ]);
      clock.set(81_000);
      expect(await users().setAdminLock(user.id, false)).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ lockedByAdmin: false, securityStamp: 2, claimsStamp: 2 });
      // Unlocking is no revocation: the feed holds the lock's event only.
      expect(await feed()).toHaveLength(1);
    });

    it('returns false when locking or clearing the lockout of a user that does not exist', async () => {
      expect(await users().setAdminLock(4242, true)).toBe(false);
      expect(await users().clearLockout(4242)).toBe(false);
    });

    it('clears an automatic lockout, leaving no end time and no failures', async () => {
      const user = await users().create(newUser());
      await users().recordFailedSignIn(user.id, { maxAttempts: 2, lockoutEnd: 90_000, now: 50_000 });
      await users().recordFailedSignIn(user.id, { maxAttempts: 2, lockoutEnd: 90_000, now: 50_000 });
      expect(await users().findById(user.id)).toMatchObject({ lockoutEnd: 90_000 });
      expect(await users().clearLockout(user.id)).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ lockoutEnd: null, accessFailedCount: 0 });
    });
  });

  describe('failed sign-ins', () => {
    const failure = { maxAttempts: 3, lockoutEnd: 350_000, now: 50_000 };

    it('counts failures, and the one that reaches the maximum locks the account and resets the count', async () => {
      const user = await users().create(newUser());
      expect(await users().recordFailedSignIn(user.id, failure)).toBe(false);
      expect(await users().recordFailedSignIn(user.id, failure)).toBe(false);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 2, lockoutEnd: null });
      expect(await users().recordFailedSignIn(user.id, failure)).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 0, lockoutEnd: 350_000 });
    });

    it('counts nothing while the lockout lasts, and counts again from 0 once it has ended', async () => {
      const user = await users().create(newUser());
      for (let i = 0; i < 3; i++) await users().recordFailedSignIn(user.id, failure);
      expect(await users().recordFailedSignIn(user.id, { ...failure, now: 349_999, lockoutEnd: 649_999 })).toBe(false);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 0, lockoutEnd: 350_000 });
      expect(await users().recordFailedSignIn(user.id, { ...failure, now: 350_000, lockoutEnd: 650_000 })).toBe(false);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 1, lockoutEnd: 350_000 });
    });

    it('counts nothing on an account an admin locked, nor for an unknown user', async () => {
      const user = await users().create(newUser());
      await users().setAdminLock(user.id, true);
      expect(await users().recordFailedSignIn(user.id, { ...failure, maxAttempts: 1 })).toBe(false);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 0, lockoutEnd: null });
      expect(await users().recordFailedSignIn(4242, failure)).toBe(false);
    });

    it('locks exactly once and loses no count when 20 failures arrive at once', async () => {
      const user = await users().create(newUser());
      const attempt = { maxAttempts: 5, lockoutEnd: 350_000, now: 50_000 };
      const locked = await Promise.all(Array.from({ length: 20 }, () => users().recordFailedSignIn(user.id, attempt)));
      expect(locked.filter(Boolean)).toHaveLength(1);
      // Five counted and locked; the other fifteen found the account locked.
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 0, lockoutEnd: 350_000 });
    });

    it('loses no count under concurrency below the maximum', async () => {
      const user = await users().create(newUser());
      await Promise.all(Array.from({ length: 12 }, () => users().recordFailedSignIn(user.id, { ...failure, maxAttempts: 100 })));
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 12, lockoutEnd: null });
    });

    it('resets the count at a completed sign-in, and leaves another user\'s alone', async () => {
      const user = await users().create(newUser());
      const other = await users().create(newUser({ email: 'b@x.io', normalizedEmail: 'b@x.io', userName: null, normalizedUserName: null }));
      await users().recordFailedSignIn(user.id, failure);
      await users().recordFailedSignIn(other.id, failure);
      expect(await users().completeSignIn(user.id, 50_000)).toBe(true);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 0 });
      expect(await users().findById(other.id)).toMatchObject({ accessFailedCount: 1 });
    });

    it('completes a sign-in without a failure to reset by reading only (SQLite: no write is noted)', async () => {
      const user = await users().create(newUser());
      const version = database.store.dataVersion;
      const before = version?.current();
      expect(await users().completeSignIn(user.id, 50_000)).toBe(true);
      expect(version?.current()).toBe(before);
      expect(await users().findById(user.id)).toMatchObject({ accessFailedCount: 0 });
    });

    it('refuses to complete a sign-in on a locked account until the lockout ends, and for an unknown user', async () => {
      const user = await users().create(newUser());
      for (let i = 0; i < 3; i++) await users().recordFailedSignIn(user.id, failure);
      expect(await users().completeSignIn(user.id, 349_999)).toBe(false);
      expect(await users().completeSignIn(user.id, 350_000)).toBe(true);
      await users().setAdminLock(user.id, true);
      expect(await users().completeSignIn(user.id, 400_000)).toBe(false);
      expect(await users().completeSignIn(4242, 50_000)).toBe(false);
    });
  });

  describe('two-factor steps', () => {
    it('spends a pending second step once, with every one begun before it, and only for a known user', async () => {
      const user = await users().create(newUser());
      expect(await users().spendTwoFactorStep(user.id, 60_000)).toBe(true);
      expect(await users().spendTwoFactorStep(user.id, 60_000)).toBe(false);
      expect(await users().spendTwoFactorStep(user.id, 59_999)).toBe(false);
      expect(await users().spendTwoFactorStep(user.id, 60_001)).toBe(true);
      expect(await users().spendTwoFactorStep(4242, 70_000)).toBe(false);
      expect((await users().findById(user.id))?.twoFactorSpentThrough).toBe(60_001);
    });

    it('lets exactly one of 20 concurrent uses of one step win, and leaves another user\'s steps alone', async () => {
      const user = await users().create(newUser());
      const other = await users().create(newUser({ email: 'b@x.io', normalizedEmail: 'b@x.io', userName: null, normalizedUserName: null }));
      const won = await Promise.all(Array.from({ length: 20 }, () => users().spendTwoFactorStep(user.id, 80_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await users().spendTwoFactorStep(other.id, 80_000)).toBe(true);
    });
  });

  describe('language', () => {
    it("keeps the registration's language, none when not given, and remembers a new one for a known user only", async () => {
      const german = await users().create(newUser({ language: 'de' }));
      const unknown = await users().create(newUser({ email: 'b@x.io', normalizedEmail: 'b@x.io', userName: null, normalizedUserName: null }));
      expect(german.language).toBe('de');
      expect(unknown.language).toBeNull();
      expect(await users().rememberLanguage(unknown.id, 'en')).toBe(true);
      expect(await users().rememberLanguage(4242, 'en')).toBe(false);
      expect((await users().findById(unknown.id))?.language).toBe('en');
      expect((await users().findById(german.id))?.language).toBe('de');
    });
  });

  describe('revocation feed', () => {
    const userEvent = (userId: number, claimsStamp: number, securityStamp: number, at: number) => ({
      id: expect.any(Number),
      kind: 'user',
      subject: String(userId),
      claimsStamp,
      securityStamp,
      at,
    });

    it('appends one event per stamp change, with the new stamps, in order', async () => {
      const user = await users().create(newUser({ roles: ['viewer'], claims: [{ type: 'dept', value: 'x' }] }));
      clock.set(61_000);
      await users().addRole(user.id, 'editor');
      clock.set(62_000);
      await users().removeRole(user.id, 'viewer');
      clock.set(63_000);
      await users().addClaim(user.id, { type: 'age', value: '30' });
      clock.set(64_000);
      await users().removeClaim(user.id, { type: 'dept', value: 'x' });
      clock.set(65_000);
      await users().setAdminLock(user.id, true);
      expect(await feed()).toEqual([
        userEvent(user.id, 2, 1, 61_000),
        userEvent(user.id, 3, 1, 62_000),
        userEvent(user.id, 4, 1, 63_000),
        userEvent(user.id, 5, 1, 64_000),
        userEvent(user.id, 6, 2, 65_000),
      ]);
      expect(await users().findById(user.id)).toMatchObject({ claimsStamp: 6, securityStamp: 2 });
    });

    it('names the user whose stamps changed, not another', async () => {
      const ada = await users().create(newUser());
      const bob = await users().create(newUser({ email: 'b', normalizedEmail: 'b', userName: null, normalizedUserName: null }));
      clock.set(60_500);
      await users().addRole(bob.id, 'editor');
      expect(await feed()).toEqual([userEvent(bob.id, 2, 1, 60_500)]);
      expect((await users().findById(ada.id))?.claimsStamp).toBe(1);
    });

    it('appends nothing for writes that change no stamp', async () => {
      const user = await users().create(newUser({ roles: ['editor'], claims: [{ type: 'dept', value: 'x' }] }));
      expect(await users().addRole(user.id, 'editor')).toBe(false);
      expect(await users().removeRole(user.id, 'viewer')).toBe(false);
      expect(await users().addClaim(user.id, { type: 'dept', value: 'x' })).toBe(false);
      expect(await users().removeClaim(user.id, { type: 'dept', value: 'y' })).toBe(false);
      expect(await users().setAdminLock(user.id, false)).toBe(true);
      expect(await users().clearLockout(user.id)).toBe(true);
      expect(await users().addRole(4242, 'editor')).toBe(false);
      expect(await users().addClaim(4242, { type: 'dept', value: 'x' })).toBe(false);
      expect(await users().setAdminLock(4242, true)).toBe(false);
      expect(await users().delete(4242)).toBe(false);
      expect(await feed()).toEqual([]);
    });

    it('appends a user-deleted event when a user is deleted, and nothing for the second delete', async () => {
      const user = await users().create(newUser());
      clock.set(66_000);
      expect(await users().delete(user.id)).toBe(true);
      clock.set(67_000);
      expect(await users().delete(user.id)).toBe(false);
      expect(await feed()).toEqual([
        { id: expect.any(Number), kind: 'user-deleted', subject: String(user.id), claimsStamp: null, securityStamp: null, at: 66_000 },
      ]);
    });

    it('ends every live refresh family of the user with an admin lock, at the store\'s time, and no other user\'s', async () => {
      const ada = await users().create(newUser());
      const bob = await users().create(newUser({ email: 'b', normalizedEmail: 'b', userName: null, normalizedUserName: null }));
      const family = (userId: number, tokenHash: string, expiresAt = 100_000) =>
        database.store.refreshTokens.createFamily({ userId, securityStamp: 1, tokenHash, createdAt: 1_000, expiresAt });
      await family(ada.id, 'a1');
      await family(ada.id, 'a2');
      const revoked = await family(ada.id, 'a3');
      await database.store.refreshTokens.revokeFamily(revoked.family.id, 2_000);
      await family(ada.id, 'a4', 40_000);
      await family(bob.id, 'b1');
      clock.set(68_000);
      expect(await users().setAdminLock(ada.id, true)).toBe(true);
      const revokedAt = async (tokenHash: string) => (await database.store.refreshTokens.find(tokenHash))?.family.revokedAt;
      expect(await revokedAt('a1')).toBe(68_000);
      expect(await revokedAt('a2')).toBe(68_000);
      expect(await revokedAt('a3')).toBe(2_000);
      expect(await revokedAt('a4')).toBeNull();
      expect(await revokedAt('b1')).toBeNull();
      expect(await database.store.refreshTokens.rotate({ tokenHash: 'a1', nextHash: 'a1-next', now: 69_000, grace: null })).toMatchObject({
        kind: 'ended',
      });
      // Lifting the lock brings no family back.
      expect(await users().setAdminLock(ada.id, false)).toBe(true);
      expect(await revokedAt('a1')).toBe(68_000);
    });

    it('ends no refresh family with a claims change (families live on; clients refresh for new claims)', async () => {
      const user = await users().create(newUser());
      await database.store.refreshTokens.createFamily({ userId: user.id, securityStamp: 1, tokenHash: 't0', createdAt: 1_000, expiresAt: 100_000 });
      await users().addRole(user.id, 'editor');
      await users().addClaim(user.id, { type: 'age', value: '30' });
      expect((await database.store.refreshTokens.find('t0'))?.family.revokedAt).toBeNull();
    });
  });

  describe('keeping a usable admin (lock, delete, remove role)', () => {
    let serial = 0;
    /** A user of its own e-mail with these roles. */
    const holder = (roles: string[]) => {
      serial += 1;
      const email = `holder${serial}@x.io`;
      return users().create(newUser({ email, normalizedEmail: email, userName: null, normalizedUserName: null, roles }));
    };
    const stateOf = async (id: number) => {
      const user = await users().findById(id);
      return user && { roles: user.roles, lockedByAdmin: user.lockedByAdmin, securityStamp: user.securityStamp, claimsStamp: user.claimsStamp };
    };
    /** Every guarded change, aimed at one user. */
    const guardedChanges = (id: number, adminRole = 'Admin') => [
      () => users().lockKeepingAdmin(id, adminRole),
      () => users().deleteKeepingAdmin(id, adminRole),
      () => users().removeRoleKeepingAdmin(id, adminRole, adminRole),
    ];

    it('refuses to lock, delete or take the role from the only holder of it, and changes nothing, the feed included', async () => {
      const admin = await holder(['Admin', 'Editor']);
      const before = await stateOf(admin.id);
      for (const change of guardedChanges(admin.id)) expect(await change()).toBe('last-admin');
      expect(await stateOf(admin.id)).toEqual(before);
      expect(await feed()).toEqual([]);
    });

    it('counts neither an admin-locked holder nor one of another spelling as the admin that remains', async () => {
      const admin = await holder(['Admin']);
      const locked = await holder(['Admin']);
      await users().setAdminLock(locked.id, true);
      await holder(['admin', 'ADMIN']);
      for (const change of guardedChanges(admin.id)) expect(await change()).toBe('last-admin');
      expect(await stateOf(admin.id)).toMatchObject({ roles: ['Admin'], lockedByAdmin: false });
      // The locked one is no usable admin either way: it may go while the usable one stays.
      expect(await users().deleteKeepingAdmin(locked.id, 'Admin')).toBe('done');
    });

    it('counts a holder within an automatic lockout as remaining: that lockout ends by itself', async () => {
      const admin = await holder(['Admin']);
      const lockedOut = await holder(['Admin']);
      await users().recordFailedSignIn(lockedOut.id, { maxAttempts: 1, lockoutEnd: 90_000, now: 50_000 });
      expect(await users().lockKeepingAdmin(admin.id, 'Admin')).toBe('done');
      expect(await users().lockKeepingAdmin(lockedOut.id, 'Admin')).toBe('last-admin');
    });

    it('lets a holder go when another usable one remains, the holder acting on itself included, each as the plain change does', async () => {
      const [first, second, third] = [await holder(['Admin']), await holder(['Admin']), await holder(['Admin'])];
      clock.set(70_000);
      expect(await users().removeRoleKeepingAdmin(first.id, 'Admin', 'Admin')).toBe('done');
      expect(await stateOf(first.id)).toMatchObject({ roles: [], claimsStamp: 2, securityStamp: 1 });
      expect(await users().lockKeepingAdmin(second.id, 'Admin')).toBe('done');
      expect(await stateOf(second.id)).toMatchObject({ lockedByAdmin: true, claimsStamp: 2, securityStamp: 2 });
      expect(await users().deleteKeepingAdmin(second.id, 'Admin')).toBe('done');
      expect(await users().findById(second.id)).toBeNull();
      expect((await feed()).map((event) => [event.kind, event.subject, event.at])).toEqual([
        ['user', String(first.id), 70_000],
        ['user', String(second.id), 70_000],
        ['user-deleted', String(second.id), 70_000],
      ]);
      for (const change of guardedChanges(third.id)) expect(await change()).toBe('last-admin');
    });

    it('changes users without the role and other roles of the last holder freely, and answers absent for an unknown user or a role not held', async () => {
      const admin = await holder(['Admin', 'Editor']);
      const plain = await holder(['Editor']);
      expect(await users().removeRoleKeepingAdmin(admin.id, 'Editor', 'Admin')).toBe('done');
      expect(await users().removeRoleKeepingAdmin(admin.id, 'Editor', 'Admin')).toBe('absent');
      expect(await users().removeRoleKeepingAdmin(plain.id, 'Admin', 'Admin')).toBe('absent');
      expect(await users().lockKeepingAdmin(plain.id, 'Admin')).toBe('done');
      expect(await users().deleteKeepingAdmin(plain.id, 'Admin')).toBe('done');
      for (const change of guardedChanges(4242)) expect(await change()).toBe('absent');
      expect(await stateOf(admin.id)).toMatchObject({ roles: ['Admin'], lockedByAdmin: false });
    });

    it('answers as the plain change does when the role was never used: nobody holds it', async () => {
      const user = await holder(['Editor']);
      expect(await users().lockKeepingAdmin(user.id, 'Admin')).toBe('done');
      expect(await users().deleteKeepingAdmin(user.id, 'Admin')).toBe('done');
    });

    /**
     * Two admins, each taking the other away (the role, a lock or a deletion by turns), 20 pairs
     * at once; each pair has a role of its own, so that every pair is the only holders of it.
     * Exactly one of each pair goes and one stays usable.
     */
    const ROUNDS = 20;
    const CHANGES = ['removeRoleKeepingAdmin', 'lockKeepingAdmin', 'deleteKeepingAdmin'] as const;
    async function adminPairs() {
      const pairs: { role: string; ids: [number, number]; change: (typeof CHANGES)[number] }[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const role = `Admin${round}`;
        const ids: [number, number] = [(await holder([role])).id, (await holder([role])).id];
        pairs.push({ role, ids, change: CHANGES[round % CHANGES.length]! });
      }
      return pairs;
    }
    async function expectOneUsableHolderEach(pairs: Awaited<ReturnType<typeof adminPairs>>, outcomes: string[][]) {
      for (const [round, { role, ids }] of pairs.entries()) {
        expect(outcomes[round]!.slice().sort(), `round ${round}`).toEqual(['done', 'last-admin']);
        const usable = (await users().findByIds(ids)).filter((user) => user.roles.includes(role) && !user.lockedByAdmin);
        expect(usable, `round ${round}`).toHaveLength(1);
      }
    }
    const callOf = (store: Store, { role, ids, change }: Awaited<ReturnType<typeof adminPairs>>[number], side: 0 | 1) => {
      // Side 0 takes away the second admin, side 1 the first.
      const target = ids[1 - side]!;
      return change === 'removeRoleKeepingAdmin' ? store.users.removeRoleKeepingAdmin(target, role, role) : store.users[change](target, role);
    };

    it('never leaves a pair of admins that take each other away at once without a usable one, each side on a store of its own', async () => {
      const pairs = await adminPairs();
      const sides = [await createStore(database.databaseUrl, engine.tables), await createStore(database.databaseUrl, engine.tables)];
      try {
        const outcomes = await Promise.all(pairs.map((pair) => Promise.all([callOf(sides[0]!, pair, 0), callOf(sides[1]!, pair, 1)])));
        await expectOneUsableHolderEach(pairs, outcomes);
      } finally {
        await Promise.all(sides.map((store) => store.close()));
      }
    });

    it('never leaves a pair of admins that take each other away at once without a usable one, each side in a process of its own', async () => {
      const pairs = await adminPairs();
      const perSide = await inSeparateProcesses<string[]>(
        2,
        database.databaseUrl,
        `const pairs = ${JSON.stringify(pairs)};
         return Promise.all(pairs.map(({ role, ids, change }) => {
           const target = ids[1 - index];
           return change === 'removeRoleKeepingAdmin' ? store.users.removeRoleKeepingAdmin(target, role, role) : store.users[change](target, role);
         }));`,
        engine.tables,
      );
      await expectOneUsableHolderEach(pairs, pairs.map((_, round) => [perSide[0]![round]!, perSide[1]![round]!]));
    });
  });

  describe('delete', () => {
    it('deletes the user with its roles and claims, and returns false the second time', async () => {
      const user = await users().create(newUser({ roles: ['editor'], claims: [{ type: 'dept', value: 'x' }] }));
      expect(await users().delete(user.id)).toBe(true);
      expect(await users().findById(user.id)).toBeNull();
      expect(await users().delete(user.id)).toBe(false);
      // The same e-mail, user name, role and claim can be used again: nothing was left behind.
      const again = await users().create(newUser({ roles: ['editor'], claims: [{ type: 'dept', value: 'x' }] }));
      expect(again).toMatchObject({ roles: ['editor'], claims: [{ type: 'dept', value: 'x' }] });
    });

    it('never gives a deleted user\'s id to a new user (old tokens name the id)', async () => {
      const first = await users().create(newUser());
      await users().delete(first.id);
      const second = await users().create(newUser());
      expect(second.id).toBeGreaterThan(first.id);
    });
  });

  describe('password hashes that are not Argon2', () => {
    /** One user per hash, e-mails and names apart; returns their ids in order. */
    async function usersWithHashes(hashes: readonly (string | null)[]): Promise<number[]> {
      const created = await users().createMany(
        hashes.map((passwordHash, index) =>
          newUser({ email: `u${index}@example.com`, normalizedEmail: `u${index}@example.com`, userName: null, normalizedUserName: null, passwordHash }),
        ),
      );
      return created.map((user) => user.id);
    }

    it('lists only the users whose hash is set and does not begin with "$argon2" (case counts), by id, with the hash', async () => {
      const ids = await usersWithHashes(['$argon2id$v=19$m=19456,t=2,p=1$a$b', 'AQAAAAIAAYag', null, '$argon2i$old', '$ARGON2id$not-ours', 'plain', '$argon']);
      expect(await users().listNonArgon2PasswordHashes(0, 100)).toEqual([
        { userId: ids[1], passwordHash: 'AQAAAAIAAYag' },
        { userId: ids[4], passwordHash: '$ARGON2id$not-ours' },
        { userId: ids[5], passwordHash: 'plain' },
        { userId: ids[6], passwordHash: '$argon' },
      ]);
    });

    it('pages by id: at most `limit`, after the given id, and nothing past the last', async () => {
      const ids = await usersWithHashes(['h1', '$argon2id$x', 'h2', 'h3', 'h4']);
      const first = await users().listNonArgon2PasswordHashes(0, 2);
      expect(first.map((row) => row.userId)).toEqual([ids[0], ids[2]]);
      const second = await users().listNonArgon2PasswordHashes(first[1]!.userId, 2);
      expect(second.map((row) => row.passwordHash)).toEqual(['h3', 'h4']);
      expect(await users().listNonArgon2PasswordHashes(ids[4]!, 2)).toEqual([]);
    });

    it('is empty when every hash is Argon2 or there are no users', async () => {
      expect(await users().listNonArgon2PasswordHashes(0, 10)).toEqual([]);
      await usersWithHashes(['$argon2id$x', null]);
      expect(await users().listNonArgon2PasswordHashes(0, 10)).toEqual([]);
    });
  });
});
