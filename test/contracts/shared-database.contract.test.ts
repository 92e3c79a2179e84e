/**
 * Gatehouse in an application's own database: with `tablePrefix` (both engines) or `schema`
 * (PostgreSQL), its tables, indexes and migration bookkeeping stay out of the way of the
 * application's tables of the same names and of the application's own Kysely migrator. The
 * application's tables can also live on the store's own connections (`Store.database`), with
 * migrations that `store.migrate()` runs after Gatehouse's.
 */
import BetterSqlite3 from 'better-sqlite3';
import { type Generated, Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ApplicationMigration, ApplicationMigrationContext, ApplicationMigrations } from '../../src/store/application-database.ts';
import { createStore, type CreateStoreOptions } from '../../src/store/create-store.ts';
import { gatehouseTables } from '../../src/store/kysely/database.ts';
import { StoreConflictError, type NewUser, type Store, type StoreEngine } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { inSeparateProcesses } from './separate-processes.ts';

const engines = await testEngines();

const ada: NewUser = {
  email: 'ada@example.com',
  normalizedEmail: 'ada@example.com',
  userName: null,
  normalizedUserName: null,
  passwordHash: null,
  emailConfirmed: true,
  roles: ['admin'],
  createdAt: 1,
};

/** Gatehouse's migrations, as its bookkeeping table lists them. */
const GATEHOUSE_MIGRATIONS = 17;
/** Gatehouse's tables and its migrator's two. */
const GATEHOUSE_TABLE_COUNT = gatehouseTables.length + 2;

/** The application's first migration: its own `users` and `sessions`, with an index name a framework might choose. */
const applicationTables: Migration = {
  async up(db) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sessions')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();
    await db.insertInto('users').values({ id: 1, name: 'the application’s user' }).execute();
    await db.insertInto('sessions').values({ id: 7, user_id: 1 }).execute();
  },
};

/** The application's own Kysely on the database, its migrator with Kysely's default table names. */
function applicationDatabase(engine: StoreEngine, databaseUrl: string): Kysely<any> {
  const dialect =
    engine === 'sqlite'
      ? new SqliteDialect({ database: new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { timeout: 5000 }) })
      : new PostgresDialect({ pool: applicationPool(databaseUrl) });
  return new Kysely<any>({ dialect });
}

/**
 * The application's PostgreSQL pool, which hears of an idle client's error as any application's
 * must (the store's pools do too): the databases are dropped `WITH (FORCE)` at the end, which ends
 * the connections still open, and an unheard error would end the test process.
 */
function applicationPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

async function migrateApplication(db: Kysely<any>, migrations: Record<string, Migration>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
  return (results ?? []).map((result) => result.migrationName);
}

async function names(db: Kysely<any>, table: string, column = 'name'): Promise<string[]> {
  const rows = await db.selectFrom(table).select(column).orderBy(column).execute();
  return rows.map((row) => String(row[column]));
}

/** Index names outside SQLite's own automatic ones, in the connection's default schema. */
async function indexNames(engine: StoreEngine, db: Kysely<any>): Promise<string[]> {
  const query =
    engine === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`;
  return (await query.execute(db)).rows.map((row) => row.name).sort();
}

describe.each(engines)('A database shared with an application, on $engine', (engine) => {
  const opened: Array<{ close(): Promise<void> }> = [];
  const open = async (databaseUrl: string, options: CreateStoreOptions): Promise<Store> => {
    const store = await createStore(databaseUrl, options);
    opened.push(store);
    return store;
  };
  const application = (databaseUrl: string): Kysely<any> => {
    const db = applicationDatabase(engine.engine, databaseUrl);
    opened.push({ close: () => db.destroy() });
    return db;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((resource) => resource.close()));
  });
  afterAll(() => engine.dropAll());

  it('keeps Gatehouse in gh_ tables beside the application’s own users, sessions and Kysely migrations', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const app = application(databaseUrl);
    expect(await migrateApplication(app, { '0001-app': applicationTables })).toEqual(['0001-app']);

    const store = await open(databaseUrl, { tablePrefix: 'gh_' });
    await store.migrate();
    const user = await store.users.create(ada);
    await expect(store.users.create(ada)).rejects.toEqual(new StoreConflictError('email'));
    await store.sessions.create({ tokenHash: 'session-1', userId: user.id, securityStamp: user.securityStamp, persistent: false, method: 'password', createdAt: 1, expiresAt: 10 });

    // The application's tables: as it left them, its columns only.
    expect(await app.selectFrom('users').selectAll().execute()).toEqual([{ id: 1, name: 'the application’s user' }]);
    expect(await app.selectFrom('sessions').selectAll().execute()).toEqual([{ id: 7, user_id: 1 }]);
    // Gatehouse's rows live in its own.
    expect(await names(app, 'gh_users', 'email')).toEqual(['ada@example.com']);
    expect(await names(app, 'gh_sessions', 'token_hash')).toEqual(['session-1']);
    // Each migrator reads its own bookkeeping, and finds nothing of the other's.
    expect(await names(app, 'kysely_migration')).toEqual(['0001-app']);
    expect(await names(app, 'gh_kysely_migration')).toHaveLength(GATEHOUSE_MIGRATIONS);
    expect(await migrateApplication(app, { '0001-app': applicationTables })).toEqual([]);
    await store.migrate();

    // Every table and index Gatehouse made carries the prefix.
    const tables = (await app.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name);
    expect(tables.filter((name) => !name.startsWith('gh_')).sort()).toEqual(['kysely_migration', 'kysely_migration_lock', 'sessions', 'users']);
    expect(tables.filter((name) => name.startsWith('gh_'))).toHaveLength(GATEHOUSE_TABLE_COUNT);
    const applicationIndexes =
      engine.engine === 'sqlite'
        ? ['sessions_user_id_index']
        : ['kysely_migration_lock_pkey', 'kysely_migration_pkey', 'sessions_pkey', 'sessions_user_id_index', 'users_pkey'];
    expect((await indexNames(engine.engine, app)).filter((name) => !name.startsWith('gh_'))).toEqual(applicationIndexes);
  });

  it('runs Gatehouse’s migrations from one of the application’s own Kysely migrations', { timeout: 15_000 }, async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const store = await open(databaseUrl, { tablePrefix: 'gh_' });
    const app = application(databaseUrl);
    // On PostgreSQL the application's migrator holds Kysely's advisory lock meanwhile, on
    // another connection: Gatehouse's must be another lock, or this would wait for itself.
    const migrated = await migrateApplication(app, { '0001-app': applicationTables, '0002-gatehouse': { up: () => store.migrate() } });
    expect(migrated).toEqual(['0001-app', '0002-gatehouse']);
    await store.users.create(ada);
    expect(await names(app, 'gh_users', 'email')).toEqual(['ada@example.com']);
  });

  it('migrates an empty database under a prefix from four processes at once', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const tables: CreateStoreOptions = engine.engine === 'postgres' ? { tablePrefix: 'gh_', schema: 'gatehouse' } : { tablePrefix: 'gh_' };
    const results = await inSeparateProcesses<string>(4, databaseUrl, `await store.migrate(); return 'migrated';`, tables);
    expect(results).toEqual(['migrated', 'migrated', 'migrated', 'migrated']);
    const store = await open(databaseUrl, tables);
    await store.migrate();
    expect((await store.users.create(ada)).email).toBe('ada@example.com');
  });

  it.skipIf(engine.engine !== 'postgres')('keeps Gatehouse in a schema of its own, created by the migration', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const app = application(databaseUrl);
    await migrateApplication(app, { '0001-app': applicationTables });
    const schemas = async () => (await app.introspection.getSchemas()).map((schema) => schema.name);
    expect(await schemas()).not.toContain('gatehouse');

    const store = await open(databaseUrl, { schema: 'gatehouse' });
    await store.migrate();
    await store.users.create(ada);

    expect(await schemas()).toContain('gatehouse');
    expect(await app.selectFrom('users').selectAll().execute()).toEqual([{ id: 1, name: 'the application’s user' }]);
    expect(await names(app, 'gatehouse.users', 'email')).toEqual(['ada@example.com']);
    expect(await names(app, 'kysely_migration')).toEqual(['0001-app']);
    expect(await names(app, 'gatehouse.kysely_migration')).toHaveLength(GATEHOUSE_MIGRATIONS);
    const tables = await app.introspection.getTables({ withInternalKyselyTables: true });
    expect(tables.filter((table) => table.schema === 'gatehouse')).toHaveLength(GATEHOUSE_TABLE_COUNT);
    expect(await migrateApplication(app, { '0001-app': applicationTables })).toEqual([]);
  });
});

describe('Table options that cannot be used', () => {
  it.each([
    ['upper case', 'GH_'],
    ['a leading digit', '1gh_'],
    ['a leading underscore', '_gh'],
    ['a hyphen', 'gh-'],
    ['a quote', 'gh"_'],
    ['more than 20 characters', 'gatehouse_identity_x_'],
    ["PostgreSQL's reserved pg_ (pg_roles is a system view)", 'pg_'],
    ["SQLite's reserved sqlite_", 'sqlite_gh_'],
  ])('refuses a table prefix with %s, naming the rule', async (_, tablePrefix) => {
    await expect(createStore('sqlite::memory:', { tablePrefix })).rejects.toThrow(
      `tablePrefix ${JSON.stringify(tablePrefix)} is not usable: expected lower-case letters, digits and "_", starting with a letter but not "pg_" or "sqlite_", at most 20 characters`,
    );
  });

  it.each(['Gatehouse', 'pg_gatehouse', 'pg_catalog', 'information_schema', 'gate house', 'a'.repeat(64)])('refuses the schema %j', async (schema) => {
    await expect(createStore('postgres://127.0.0.1:1/none', { schema })).rejects.toThrow(`schema ${JSON.stringify(schema)} is not usable`);
  });

  it('refuses a schema on SQLite, pointing at tablePrefix', async () => {
    await expect(createStore('sqlite::memory:', { schema: 'gatehouse' })).rejects.toThrow(/is for PostgreSQL; on SQLite .* tablePrefix/);
  });
});

/** An application's invoices, with a foreign key to Gatehouse's users wherever they are named. */
const invoices = {
  async up(db: Kysely<any>, { engine, tableName }: ApplicationMigrationContext) {
    await db.schema
      .createTable('invoices')
      .addColumn('id', 'integer', (c) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
      .addColumn('owner_id', 'integer', (c) => c.notNull().references(`${tableName('users')}.id`).onDelete('cascade'))
      .addColumn('amount', 'integer', (c) => c.notNull())
      .execute();
  },
} satisfies ApplicationMigration;

interface InvoiceTables {
  invoices: { id: Generated<number>; owner_id: number; amount: number };
}

describe.each(engines)('The application’s tables on the store’s connections, on $engine', (engine) => {
  const opened: Store[] = [];
  const open = async (databaseUrl: string, migrations: ApplicationMigrations): Promise<Store> => {
    // Under a prefix (and a schema on PostgreSQL): the application's foreign key must name them.
    const tables: CreateStoreOptions = engine.engine === 'postgres' ? { tablePrefix: 'gh_', schema: 'gatehouse' } : { tablePrefix: 'gh_' };
    const store = await createStore(databaseUrl, { ...tables, migrations });
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  afterAll(() => engine.dropAll());

  it('migrates them after Gatehouse’s, apart from its bookkeeping, and only once', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const store = await open(databaseUrl, { '0001-invoices': invoices });
    await store.migrate();
    const db = store.database.kysely<any>();
    expect(await names(db, 'application_migration')).toEqual(['0001-invoices']);
    expect(await names(db, engine.engine === 'postgres' ? 'gatehouse.gh_kysely_migration' : 'gh_kysely_migration')).toHaveLength(GATEHOUSE_MIGRATIONS);
    expect(store.database.tableName('users')).toBe(engine.engine === 'postgres' ? 'gatehouse.gh_users' : 'gh_users');

    // A later version of the application adds a migration: only that one runs.
    const later = await open(databaseUrl, {
      '0001-invoices': invoices,
      '0002-invoice-notes': { up: (migrationDb) => migrationDb.schema.alterTable('invoices').addColumn('note', 'text').execute() },
    });
    await later.migrate();
    await later.migrate();
    expect(await names(db, 'application_migration')).toEqual(['0001-invoices', '0002-invoice-notes']);
    const user = await later.users.create(ada);
    await later.database.kysely<any>().insertInto('invoices').values({ owner_id: user.id, amount: 5, note: 'n' }).execute();
    expect(await db.selectFrom('invoices').select(['amount', 'note']).execute()).toEqual([{ amount: 5, note: 'n' }]);
  });

  it('refers to Gatehouse’s users: an invoice goes with its owner, and names no user that does not exist', async () => {
    const store = await open(await engine.createDatabaseUrl(), { '0001-invoices': invoices });
    await store.migrate();
    const db = store.database.kysely<InvoiceTables>();
    const user = await store.users.create(ada);
    await db.insertInto('invoices').values({ owner_id: user.id, amount: 10 }).execute();
    await expect(db.insertInto('invoices').values({ owner_id: user.id + 100, amount: 1 }).execute()).rejects.toThrow(/foreign key/i);
    await store.users.delete(user.id);
    expect(await db.selectFrom('invoices').selectAll().execute()).toEqual([]);
  });

  it('writes a transaction whole or not at all', async () => {
    const store = await open(await engine.createDatabaseUrl(), { '0001-invoices': invoices });
    await store.migrate();
    const user = await store.users.create(ada);
    const failed = store.database.transaction<InvoiceTables, void>(async (trx) => {
      await trx.insertInto('invoices').values({ owner_id: user.id, amount: 1 }).execute();
      throw new Error('the second half failed');
    });
    await expect(failed).rejects.toThrow('the second half failed');
    const amounts = await store.database.transaction<InvoiceTables, number[]>(async (trx) => {
      await trx.insertInto('invoices').values([{ owner_id: user.id, amount: 2 }, { owner_id: user.id, amount: 3 }]).execute();
      return (await trx.selectFrom('invoices').select('amount').orderBy('amount').execute()).map((row) => row.amount);
    });
    expect(amounts).toEqual([2, 3]);
  });

  it('leaves nothing of a migration that fails, and names the error', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const broken: ApplicationMigration = {
      async up(db) {
        await db.schema.createTable('half_made').addColumn('id', 'integer').execute();
        await sql`select * from no_such_table`.execute(db);
      },
    };
    const store = await open(databaseUrl, { '0001-invoices': invoices, '0002-broken': broken });
    await expect(store.migrate()).rejects.toThrow(/no_such_table/);
    const tables = (await store.database.kysely().introspection.getTables()).map((table) => table.name);
    expect(tables).not.toContain('half_made');
    // Fixed in the next version, the same database migrates.
    const fixed = await open(databaseUrl, { '0001-invoices': invoices, '0002-broken': { up: async () => {} } });
    await fixed.migrate();
    expect(await names(fixed.database.kysely(), 'application_migration')).toEqual(['0001-invoices', '0002-broken']);
  });

  it.skipIf(engine.engine !== 'sqlite')('moves the data version with the application’s writes, at once', async () => {
    const store = await open(await engine.createDatabaseUrl(), { '0001-invoices': invoices });
    await store.migrate();
    const user = await store.users.create(ada);
    const before = store.dataVersion!.current()!;
    await store.database.kysely<InvoiceTables>().insertInto('invoices').values({ owner_id: user.id, amount: 1 }).execute();
    expect(store.dataVersion!.current()!).toBeGreaterThan(before);
  });
});
