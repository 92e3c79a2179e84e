import { describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

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

  it('goes with its user', async () => {
    const user = await database.store.users.create(newUser());
    await logins().add({ userId: user.id, provider: 'acme', subject: 'gone', createdAt: 1 });
    await database.store.users.delete(user.id);
    expect(await logins().find('acme', 'gone')).toBeNull();
  });
});
