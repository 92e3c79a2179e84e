import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('PostStore on $engine', (engine) => {
  const database = useMigratedStore(engine, { migrations: serviceMigrations });
  const data = () => serviceData(database.store.database);
  const posts = () => data().posts;

  let emails = 0;
  const createUser = async () => {
    emails += 1;
    const email = `author${emails}@example.com`;
    const user = await database.store.users.create({ email, normalizedEmail: email, userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 });
    return user.id;
  };

  it('creates, finds, lists newest first, updates and deletes', async () => {
    const authorId = await createUser();
    const { post: first } = await posts().create({ authorId, title: 'one', body: 'b1', createdAt: 1_000 });
    const { post: second } = await posts().create({ authorId, title: 'two', body: 'b2', createdAt: 1_000 });
    expect(first).toEqual({ id: expect.any(Number), authorId, title: 'one', body: 'b1', createdAt: 1_000 });
    expect(await posts().findById(first.id)).toEqual(first);
    expect((await posts().list(10)).map((post) => post.title)).toEqual(['two', 'one']);
    expect((await posts().list(1)).map((post) => post.title)).toEqual(['two']);
    expect(await posts().update(second.id, { title: 'zwei' })).toEqual({ ...second, title: 'zwei' });
    expect(await posts().update(9_999, { title: 'none' })).toBeNull();
    expect(await posts().delete(first.id)).toBe(true);
    expect(await posts().delete(first.id)).toBe(false);
    expect(await posts().findById(first.id)).toBeNull();
  });

  it('lists the newest posts of several authors in one call, up to the limit each', async () => {
    const a = await createUser();
    const b = await createUser();
    const c = await createUser();
    for (const [authorId, title] of [[a, 'a1'], [b, 'b1'], [a, 'a2'], [a, 'a3'], [b, 'b2']] as const) {
      await posts().create({ authorId, title, body: 'x', createdAt: 1 });
    }
    const byAuthor = await posts().listByAuthors([a, b, c], 2);
    expect(byAuthor.get(a)!.map((post) => post.title)).toEqual(['a3', 'a2']);
    expect(byAuthor.get(b)!.map((post) => post.title)).toEqual(['b2', 'b1']);
    expect(byAuthor.get(c)).toEqual([]);
  });

  it('goes with its author', async () => {
    const authorId = await createUser();
    const { post } = await posts().create({ authorId, title: 't', body: 'b', createdAt: 1 });
    await database.store.users.delete(authorId);
    expect(await posts().findById(post.id)).toBeNull();
  });
});
