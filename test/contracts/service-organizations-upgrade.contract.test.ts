/**
 * A reference service's database from before organizations were Gatehouse's (Gatehouse's
 * migrations up to 0015, the service's up to 0003, its demo `organizations` with settings),
 * upgraded by the next start: Gatehouse's 0016 adopts the table (a slug for each row, ids kept),
 * and the service's 0004 moves each organization's settings to `organization_settings` and drops
 * the column. Nothing is lost, and the organizations work as Gatehouse's.
 */
import { type Kysely, type Migration, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import { createStore } from '../../src/store/create-store.ts';
import { tableNaming } from '../../src/store/kysely/table-naming.ts';
import { migrationProvider } from '../../src/store/migrations/migration-provider.ts';
import type { Store } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';

const engines = await testEngines();
/** The service's migrations of that time. */
const BEFORE = ['0001-documents-and-organizations', '0002-posts', '0003-event-outbox'];

describe.each(engines)('upgrading a reference service database to organizations, on $engine', (engine) => {
  /** Gatehouse's migrations to 0015 and the service's of that time, as an older start left them. */
  async function olderDatabase(db: Kysely<any>): Promise<void> {
    const naming = tableNaming(engine.engine, {});
    const gatehouse = new Migrator({
      db,
      provider: migrationProvider(engine.engine, (migrationDb) => naming.on(migrationDb)),
      migrationTableName: naming.migrationTable,
      migrationLockTableName: naming.migrationLockTable,
    });
    const { error } = await gatehouse.migrateTo('0015-passkeys');
    if (error !== undefined) throw error;
    const context = { engine: engine.engine, tableName: (table: string) => table };
    const older: Record<string, Migration> = Object.fromEntries(BEFORE.map((name) => [name, { up: (migrationDb: Kysely<any>) => serviceMigrations[name]!.up(migrationDb, context) }]));
    const service = new Migrator({
      db,
      provider: { getMigrations: async () => older },
      migrationTableName: 'application_migration',
      migrationLockTableName: 'application_migration_lock',
    });
    const applied = await service.migrateToLatest();
    if (applied.error !== undefined) throw applied.error;
  }

  it('keeps every organization with its id and settings, gives each a slug, and serves them as Gatehouse\'s', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const stores: Store[] = [];
    try {
      const older = await createStore(databaseUrl);
      stores.push(older);
      const db = older.database.kysely<any>();
      await olderDatabase(db);
      const rows = [
        { name: 'Acme', settings: '{"theme":"dark"}', created_at: 1 },
        { name: 'Acme', settings: '{}', created_at: 2 },
        { name: 'Globex Corp.', settings: '{"sso":{"required":true}}', created_at: 3 },
      ];
      const ids: number[] = [];
      for (const row of rows) ids.push(Number((await db.insertInto('organizations').values(row).returning('id').executeTakeFirstOrThrow()).id));

      const store = await createStore(databaseUrl, { migrations: serviceMigrations });
      stores.push(store);
      await store.migrate();

      const listed = await store.organizations.list();
      expect(listed.map(({ id, name, slug, createdAt, members }) => ({ id, name, slug, createdAt, members }))).toEqual([
        { id: ids[0], name: 'Acme', slug: 'acme', createdAt: 1, members: 0 },
        { id: ids[1], name: 'Acme', slug: 'acme-2', createdAt: 2, members: 0 },
        { id: ids[2], name: 'Globex Corp.', slug: 'globex-corp', createdAt: 3, members: 0 },
      ]);
      const settings = serviceData(store.database).organizationSettings;
      expect(await settings.settingsOf(ids[0]!)).toEqual({ theme: 'dark' });
      expect(await settings.settingsOf(ids[1]!)).toEqual({});
      expect(await settings.settingsOf(ids[2]!)).toEqual({ sso: { required: true } });
      const columns = (await db.introspection.getTables()).find((table) => table.name === 'organizations')!.columns.map((column) => column.name);
      expect(columns.sort()).toEqual(['created_at', 'id', 'name', 'slug']);

      // Gatehouse's from now on: members, and new organizations after the old ids.
      const owner = await store.users.create({ email: 'o@example.com', normalizedEmail: 'o@example.com', userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 });
      expect(await store.organizations.addMember({ organizationId: ids[0]!, userId: owner.id, roles: ['OrgOwner'], joinedAt: 5 })).toBe('added');
      const created = await store.organizations.create({ name: 'Acme', slug: 'acme-3', createdAt: 6 }, { userId: owner.id, roles: ['OrgOwner'] });
      expect(created.id).toBeGreaterThan(ids[2]!);
    } finally {
      for (const store of stores) await store.close();
      await engine.dropAll();
    }
  });

  it('creates Gatehouse\'s organizations on a new database, the service\'s settings table beside them', async () => {
    const store = await createStore(await engine.createDatabaseUrl(), { migrations: serviceMigrations });
    try {
      await store.migrate();
      const tables = await store.database.kysely<any>().introspection.getTables();
      const columns = (name: string) => tables.find((table) => table.name === name)?.columns.map((column) => column.name).sort();
      expect(columns('organizations')).toEqual(['created_at', 'id', 'name', 'slug']);
      expect(columns('organization_settings')).toEqual(['organization_id', 'settings']);
    } finally {
      await store.close();
      await engine.dropAll();
    }
  });
});
