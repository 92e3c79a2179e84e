import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import type { ServiceTables } from '../../server/storage/service-tables.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('the service’s OrganizationSettingsStore on $engine', (engine) => {
  const database = useMigratedStore(engine, { migrations: serviceMigrations });
  const settings = () => serviceData(database.store.database).organizationSettings;
  const organization = async (name: string) => {
    const owner = await database.store.users.create({
      email: `${name}@example.com`,
      normalizedEmail: `${name}@example.com`,
      userName: null,
      normalizedUserName: null,
      passwordHash: null,
      emailConfirmed: true,
      createdAt: 1,
    });
    return database.store.organizations.create({ name, slug: name, createdAt: 1 }, { userId: owner.id, roles: ['OrgOwner'] });
  };

  it('gives {} for an organization whose settings were never written', async () => {
    const acme = await organization('acme');
    expect(await settings().settingsOf(acme.id)).toEqual({});
  });

  it('replaces the settings as a whole, nested values included, rather than merging them', async () => {
    const acme = await organization('acme');
    await settings().replace(acme.id, { theme: 'dark', limits: { seats: 5 } });
    await settings().replace(acme.id, { sso: { required: true, providers: ['google'] } });
    expect(await settings().settingsOf(acme.id)).toEqual({ sso: { required: true, providers: ['google'] } });
  });

  it('keeps each organization’s settings apart, and drops them with the organization', async () => {
    const acme = await organization('acme');
    const other = await organization('other');
    await settings().replace(acme.id, { theme: 'dark' });
    await settings().replace(other.id, { theme: 'light' });
    await database.store.organizations.delete(acme.id, 2);
    const rows = await database.store.database.kysely<ServiceTables>().selectFrom('organization_settings').select('organization_id').execute();
    expect(rows).toEqual([{ organization_id: other.id }]);
    expect(await settings().settingsOf(other.id)).toEqual({ theme: 'light' });
  });

  it('refuses settings for an organization that does not exist (a foreign key)', async () => {
    await expect(settings().replace(4242, { a: 1 })).rejects.toThrow();
  });
});
