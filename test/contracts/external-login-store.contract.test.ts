import { describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { inSeparateProcesses } from './separate-processes.ts';

const engines = await testEngines();

describe.each(engines)('ExternalLoginStore on $engine', (engine) => {
  const database = useMigratedStore(engine);
  const logins = () => database.store.externalLogins;

  let emails = 0;
  const newUser = () => {
    emails += 1;
    const email = `person${emails}@example.com`;
    return { email, normalizedEmail: email, userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 };
  };

  it('links, finds by (provider, subject), lists and unlinks', async () => {
    const user = await database.store.users.create(newUser());
    await logins().add({ userId: user.id, provider: 'acme', subject: 's-1', createdAt: 10 });
    await logins().add({ userId: user.id, provider: 'beta', subject: 's-1', createdAt: 11 });
    expect(await logins().find('acme', 's-1')).toEqual({ userId: user.id, provider: 'acme', subject: 's-1', createdAt: 10 });
    expect(await logins().find('acme', 's-2')).toBeNull();
    expect((await logins().listForUser(user.id)).map((login) => login.provider)).toEqual(['acme', 'beta']);
    expect(await logins().remove(user.id, 'acme')).toBe(true);
    expect(await logins().remove(user.id, 'acme')).toBe(false);
    expect(await logins().find('acme', 's-1')).toBeNull();
  });

  it('refuses a pair linked to another user, and a second login of one provider for one user', async () => {
    const first = await database.store.users.create(newUser());
    const second = await database.store.users.create(newUser());
    await logins().add({ userId: first.id, provider: 'acme', subject: 'same', createdAt: 1 });
    await expect(logins().add({ userId: second.id, provider: 'acme', subject: 'same', createdAt: 2 })).rejects.toBeInstanceOf(StoreConflictError);
    await expect(logins().add({ userId: first.id, provider: 'acme', subject: 'other', createdAt: 2 })).rejects.toBeInstanceOf(StoreConflictError);
  });

  it('creates a user with a login in one transaction, and nothing when the pair is taken', async () => {
    const created = await logins().createUserWithLogin(newUser(), { provider: 'acme', subject: 'new', createdAt: 5 });
    expect(created.emailConfirmed).toBe(true);
    expect(await logins().find('acme', 'new')).toMatchObject({ userId: created.id });
    const before = (await database.store.users.list()).length;
    await expect(logins().createUserWithLogin(newUser(), { provider: 'acme', subject: 'new', createdAt: 6 })).rejects.toBeInstanceOf(StoreConflictError);
    expect((await database.store.users.list()).length).toBe(before);
  });

  it('unlinks unless it is the last way to sign in: no password and no other login', async () => {
    const passwordless = await database.store.users.create(newUser());
    await logins().add({ userId: passwordless.id, provider: 'acme', subject: 'p-acme', createdAt: 1 });
    await logins().add({ userId: passwordless.id, provider: 'beta', subject: 'p-beta', createdAt: 1 });
    expect(await logins().removeUnlessLastWayIn(passwordless.id, 'gamma')).toBe('not-linked');
    expect(await logins().removeUnlessLastWayIn(passwordless.id, 'acme')).toBe('removed');
    expect(await logins().removeUnlessLastWayIn(passwordless.id, 'acme')).toBe('not-linked');
    expect(await logins().removeUnlessLastWayIn(passwordless.id, 'beta')).toBe('last-way-in');
    expect((await logins().listForUser(passwordless.id)).map((login) => login.provider)).toEqual(['beta']);

    const withPassword = await database.store.users.create({ ...newUser(), passwordHash: '$argon2id$x' });
    await logins().add({ userId: withPassword.id, provider: 'acme', subject: 'w-acme', createdAt: 1 });
    expect(await logins().removeUnlessLastWayIn(withPassword.id, 'acme')).toBe('removed');
    expect(await logins().listForUser(withPassword.id)).toEqual([]);
    expect(await logins().removeUnlessLastWayIn(withPassword.id + 1_000, 'acme')).toBe('not-linked');
  });

  it('leaves one login when two processes unlink the two logins of a password-less user at once, round after round', async () => {
    const rounds = 40;
    const userIds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const user = await database.store.users.create(newUser());
      await logins().add({ userId: user.id, provider: 'acme', subject: `race-acme-${round}`, createdAt: 1 });
      await logins().add({ userId: user.id, provider: 'beta', subject: `race-beta-${round}`, createdAt: 1 });
      userIds.push(user.id);
    }
    // Each process holds its own store (its own connections) and removes one of the two logins of
    // every user, in the same order: the two removals of a user run at the same time.
    const outcomes = await inSeparateProcesses<string[]>(
      2,
      database.databaseUrl,
      `const outcomes = [];
       for (const userId of ${JSON.stringify(userIds)}) outcomes.push(await store.externalLogins.removeUnlessLastWayIn(userId, index === 0 ? 'acme' : 'beta'));
       return outcomes;`,
      engine.tables,
    );
    for (const [round, userId] of userIds.entries()) {
      expect(await logins().listForUser(userId)).toHaveLength(1);
      expect([outcomes[0]![round], outcomes[1]![round]].sort()).toEqual(['last-way-in', 'removed']);
    }
  });

  it('goes with its user', async () => {
    const user = await database.store.users.create(newUser());
    await logins().add({ userId: user.id, provider: 'acme', subject: 'gone', createdAt: 1 });
    await database.store.users.delete(user.id);
    expect(await logins().find('acme', 'gone')).toBeNull();
  });
});
