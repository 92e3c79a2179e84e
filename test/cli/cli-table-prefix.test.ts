/**
 * A team that keeps Gatehouse's tables under a prefix (and, on PostgreSQL, in a schema) uses the
 * `gatehouse` command with `DATABASE_TABLE_PREFIX` and `DATABASE_SCHEMA`: `users add` writes
 * `gh_users`, and an application registering the plugin with the same settings signs that user in.
 * The plugin's own `tablePrefix` beats the setting. Needs `npm run build` (the command runs dist/).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, type GatehouseOptions, type GatehouseSettings, serverOptions } from 'gatehouse-auth/fastify';
import { testEngines } from '../helpers/databases.ts';
import { runCli, useProcessCleanup } from '../helpers/processes.ts';

const engines = await testEngines();
const PASSWORD = 'quiet-lantern-orbit-47';
const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The e-mails in a table, read with the engine's own driver (not through Gatehouse). */
async function emailsIn(databaseUrl: string, table: string): Promise<string[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const database = new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      return (database.prepare(`select email from ${table}`).all() as { email: string }[]).map((row) => row.email);
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ email: string }>(`select email from ${table}`)).rows.map((row) => row.email);
  } finally {
    await client.end();
  }
}

async function tokenAnswer(settings: GatehouseSettings, options: Omit<GatehouseOptions, 'settings'>, email: string): Promise<number> {
  const app = Fastify(serverOptions(configFromSettings(settings)));
  apps.push(app);
  await app.register(gatehouse, { settings, ...options });
  await app.ready();
  return (await app.inject({ method: 'POST', url: '/auth/token', payload: { email, password: PASSWORD } })).statusCode;
}

describe.each(engines)('tables under a prefix on $engine', ({ engine, createDatabaseUrl, dropAll }) => {
  useProcessCleanup();
  afterAll(() => dropAll());

  const schema = engine === 'postgres' ? 'gatehouse' : undefined;
  const qualified = (table: string) => (schema ? `${schema}.${table}` : table);

  it('`users add` writes them with DATABASE_TABLE_PREFIX, and a plugin with the same settings signs the user in', { timeout: 60_000 }, async () => {
    const databaseUrl = await createDatabaseUrl();
    const variables = { DATABASE_URL: databaseUrl, DATABASE_TABLE_PREFIX: 'gh_', ...(schema ? { DATABASE_SCHEMA: schema } : {}) };
    const added = await runCli(['users', 'add', '--email', 'ada@example.com', '--password', PASSWORD, '--confirmed'], variables);
    expect(added.code, added.stderr).toBe(0);

    expect(await emailsIn(databaseUrl, qualified('gh_users'))).toEqual(['ada@example.com']);
    // Nothing under the plain names: the command did not migrate a second set of tables.
    await expect(emailsIn(databaseUrl, 'users')).rejects.toThrow(/users/);

    const settings = { databaseUrl, databaseTablePrefix: 'gh_', ...(schema ? { databaseSchema: schema } : {}) };
    expect(await tokenAnswer(settings, {}, 'ada@example.com')).toBe(200);
    // The plugin's option beats the setting: under another prefix there is no such user.
    expect(await tokenAnswer(settings, { tablePrefix: 'other_' }, 'ada@example.com')).toBe(401);
  });

  it('refuses a prefix that is not a lower-case name, naming the variable (exit 2)', async () => {
    const databaseUrl = await createDatabaseUrl();
    const result = await runCli(['users', 'list'], { DATABASE_URL: databaseUrl, DATABASE_TABLE_PREFIX: 'GH-' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatehouse: DATABASE_TABLE_PREFIX must be lower-case letters, digits and "_", starting with a letter but not "pg_" or "sqlite_", at most 20 characters (e.g. gh_) (got "GH-")\n');
  });

  it('refuses a pg_ prefix, which would turn Gatehouse\'s roles into the system view pg_roles (exit 2)', async () => {
    const databaseUrl = await createDatabaseUrl();
    const result = await runCli(['users', 'list'], { DATABASE_URL: databaseUrl, DATABASE_TABLE_PREFIX: 'pg_' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^gatehouse: DATABASE_TABLE_PREFIX must be .* not "pg_" .*\(got "pg_"\)\n$/);
  });
});

describe('the settings of the store’s tables', () => {
  it('are refused by name when not usable', () => {
    expect(() => configFromSettings({ databaseTablePrefix: 'Gh_' })).toThrow(/^databaseTablePrefix must be lower-case letters/);
    expect(() => configFromSettings({ databaseUrl: 'postgres://db/app', databaseSchema: 'pg_catalog' })).toThrow(/^databaseSchema must be/);
    expect(() => configFromSettings({ databaseUrl: 'postgres://db/app', databaseSchema: 'information_schema' })).toThrow(/^databaseSchema must be .*not a system schema/);
    expect(() => configFromSettings({ databaseTablePrefix: 'pg_' })).toThrow(/^databaseTablePrefix must be/);
    expect(() => configFromSettings({ databaseTablePrefix: 'sqlite_' })).toThrow(/^databaseTablePrefix must be/);
    expect(() => configFromSettings({ databaseUrl: 'sqlite::memory:', databaseSchema: 'gatehouse' })).toThrow(
      /^databaseSchema must be unset with an SQLite database/,
    );
    expect(configFromSettings({ databaseUrl: 'postgres://db/app', databaseTablePrefix: 'gh_', databaseSchema: 'gatehouse' })).toMatchObject({
      databaseTablePrefix: 'gh_',
      databaseSchema: 'gatehouse',
    });
  });
});
