import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('OrganizationStore on $engine', (engine) => {
  const database = useMigratedStore(engine, { migrations: serviceMigrations });
  const organizations = () => serviceData(database.store.database).organizations;

  it('creates an organization with empty settings and finds it by id', async () => {
    const created = await organizations().create({ name: 'Acme', createdAt: 1_000 });
    expect(created).toEqual({ id: expect.any(Number), name: 'Acme', settings: {} });
    expect(await organizations().find(created.id)).toEqual(created);
  });

  it('returns null when finding, and null when updating the settings of, an organization that does not exist', async () => {
    expect(await organizations().find(4242)).toBeNull();
    expect(await organizations().updateSettings(4242, { a: 1 })).toBeNull();
  });

  it('replaces the settings as a whole, nested values included, rather than merging them', async () => {
    const created = await organizations().create({ name: 'Acme', createdAt: 1_000 });
    await organizations().updateSettings(created.id, { theme: 'dark', limits: { seats: 5 } });
    const updated = await organizations().updateSettings(created.id, { sso: { required: true, providers: ['google'] } });
    expect(updated).toEqual({ id: created.id, name: 'Acme', settings: { sso: { required: true, providers: ['google'] } } });
    expect(await organizations().find(created.id)).toEqual(updated);
  });

  it('allows two organizations with the same name (names are not unique)', async () => {
    const first = await organizations().create({ name: 'Acme', createdAt: 1 });
    const second = await organizations().create({ name: 'Acme', createdAt: 2 });
    expect(second.id).not.toBe(first.id);
  });
});
