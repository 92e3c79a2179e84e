import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('DocumentStore on $engine', (engine) => {
  const database = useMigratedStore(engine, { migrations: serviceMigrations });
  const documents = () => serviceData(database.store.database).documents;
  const owner = async (email = 'owner@example.com') =>
    (
      await database.store.users.create({
        email,
        normalizedEmail: email,
        userName: null,
        normalizedUserName: null,
        passwordHash: null,
        emailConfirmed: true,
        createdAt: 1,
      })
    ).id;

  it('creates a document and finds it by id', async () => {
    const ownerId = await owner();
    const created = await documents().create({ ownerId, title: 'Plan', body: 'Text', createdAt: 1_000 });
    expect(created).toEqual({ id: expect.any(Number), ownerId, title: 'Plan', body: 'Text' });
    expect(await documents().find(created.id)).toEqual(created);
  });

  it('returns null when finding, and null when updating, a document that does not exist', async () => {
    expect(await documents().find(4242)).toBeNull();
    expect(await documents().update(4242, { title: 't', body: 'b' })).toBeNull();
  });

  it('replaces title and body on update and keeps the owner', async () => {
    const ownerId = await owner();
    const created = await documents().create({ ownerId, title: 'Plan', body: 'Text', createdAt: 1_000 });
    const updated = await documents().update(created.id, { title: 'Plan B', body: '' });
    expect(updated).toEqual({ id: created.id, ownerId, title: 'Plan B', body: '' });
    expect(await documents().find(created.id)).toEqual(updated);
  });

  it('deletes a document once: true, then false, and other documents stay', async () => {
    const ownerId = await owner();
    const doomed = await documents().create({ ownerId, title: 'a', body: 'a', createdAt: 1 });
    const kept = await documents().create({ ownerId, title: 'b', body: 'b', createdAt: 2 });
    expect(await documents().delete(doomed.id)).toBe(true);
    expect(await documents().delete(doomed.id)).toBe(false);
    expect(await documents().find(doomed.id)).toBeNull();
    expect(await documents().find(kept.id)).toEqual(kept);
  });

  it('deletes a user\'s documents with the user, and only theirs', async () => {
    const ada = await owner('ada@example.com');
    const bob = await owner('bob@example.com');
    const adas = await documents().create({ ownerId: ada, title: 'a', body: 'a', createdAt: 1 });
    const bobs = await documents().create({ ownerId: bob, title: 'b', body: 'b', createdAt: 1 });
    await database.store.users.delete(ada);
    expect(await documents().find(adas.id)).toBeNull();
    expect(await documents().find(bobs.id)).toEqual(bobs);
  });

  it('refuses a document whose owner does not exist', async () => {
    await expect(documents().create({ ownerId: 4242, title: 't', body: 'b', createdAt: 1 })).rejects.toThrow();
  });
});
