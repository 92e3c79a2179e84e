/**
 * Databases for tests, one engine per entry; every storage suite runs against each.
 *
 *   testEngines(): Promise<TestEngine[]>
 *     SQLite always; PostgreSQL when TEST_DATABASE_URL (default
 *     postgres://postgres@127.0.0.1:5432/test) answers. Each engine gives
 *       createDatabaseUrl(): a fresh, empty, unmigrated database (SQLite: a new temp file;
 *         PostgreSQL: CREATE DATABASE gh_<random> through the admin URL), so parallel test
 *         files never share data;
 *       createMigratedDatabaseUrl(migrations?): a fresh database with Gatehouse's migrations (and
 *         an application's) applied: a copy of one database the engine migrated once (PostgreSQL:
 *         CREATE DATABASE … TEMPLATE; SQLite: the file copied). Migrating costs more than most
 *         tests do; a copy costs a fraction of it and holds the same tables, indexes and rows;
 *       dropAll(): drops every database that engine created (call it in afterAll).
 *
 *   redisAvailable(): Promise<boolean>
 *     Whether TEST_REDIS_URL (default redis://127.0.0.1:6379) answers PING.
 *
 * A missing service skips its suites with one loud line on stderr per test run, unless
 * REQUIRE_SERVICES=1, when the helper throws and the suite fails.
 *
 *   const engines = await testEngines();
 *   describe.each(engines)('UserStore on $engine', ({ createDatabaseUrl, dropAll }) => { … });
 *
 *   testEnginesWithPrefixedTables(): Promise<TestEngine[]>
 *     testEngines(), then each again with Gatehouse's tables under the prefix `gh_` (and, on
 *     PostgreSQL, in the schema `gatehouse`): `tables` holds the store options that place them,
 *     `table(name)` a table's name as raw SQL writes it, and `label` says which is which in a
 *     title (`describe.each(…)('UserStore on $label', …)`).
 */
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ApplicationMigrations } from '../../src/store/application-database.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { StoreTableOptions } from '../../src/store/kysely/table-naming.ts';
import type { StoreEngine } from '../../src/store/ports.ts';

export interface TestEngine {
  readonly engine: StoreEngine;
  /** The engine, and where Gatehouse's tables are when not under their plain names: for titles. */
  readonly label: string;
  /** The table prefix and schema that every store on these databases takes; {} for the plain names. */
  readonly tables: StoreTableOptions;
  /** A Gatehouse table's name as raw SQL on these databases writes it. */
  table(name: string): string;
  /** A fresh, empty database (not migrated) for one test or suite. */
  createDatabaseUrl(): Promise<string>;
  /**
   * A fresh database as `createStore(url, { ...tables, migrations }).migrate()` leaves it, for one
   * test: a copy of one this engine migrated once, until `dropAll()`.
   */
  createMigratedDatabaseUrl(migrations?: ApplicationMigrations): Promise<string>;
  /** Drops every database this engine created. */
  dropAll(): Promise<void>;
}

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** How long to wait for a service before calling it missing. */
const PROBE_TIMEOUT_MS = 2000;

let postgresProbe: Promise<string | null> | undefined;
let redisProbe: Promise<boolean> | undefined;

/**
 * `TEST_ENGINES=sqlite` (the Vitest projects of the hosts other than Fastify): the host is what
 * those runs test, and the stores answer alike under every host, so SQLite alone stands for both
 * engines there; the Fastify runs test each engine.
 */
const SQLITE_ONLY = process.env.TEST_ENGINES === 'sqlite';

export async function testEngines(): Promise<TestEngine[]> {
  const engines = [sqliteEngine({}, 'sqlite', plainName)];
  if (SQLITE_ONLY) return engines;
  const adminUrl = await (postgresProbe ??= probePostgres());
  if (adminUrl !== null) engines.push(postgresEngine(adminUrl, {}, 'postgres', plainName));
  return engines;
}

/**
 * PostgreSQL whatever `TEST_ENGINES` says, for a suite whose subject needs it on every host (a
 * store cut off mid-request: a relay in front of SQLite's file does not exist); undefined when it
 * is missing.
 */
export async function postgresOnEveryHost(): Promise<TestEngine | undefined> {
  const adminUrl = await (postgresProbe ??= probePostgres());
  return adminUrl === null ? undefined : postgresEngine(adminUrl, {}, 'postgres', plainName);
}

export async function redisAvailable(): Promise<boolean> {
  return (redisProbe ??= probeRedis());
}

/**
 * The engines of `testEngines()`, then each again with Gatehouse's tables under a prefix (and a
 * schema on PostgreSQL). The prefixed PostgreSQL engine's empty databases are one for the suite,
 * its schema dropped each time (creating a database costs more than dropping a schema); its
 * migrated ones are copies, as every engine's.
 */
export async function testEnginesWithPrefixedTables(): Promise<TestEngine[]> {
  const engines = await testEngines();
  const prefixed = [sqliteEngine({ tablePrefix: 'gh_' }, 'sqlite, tables gh_*', (name) => `gh_${name}`)];
  const adminUrl = SQLITE_ONLY ? null : await postgresProbe;
  if (adminUrl) {
    const own = postgresEngine(adminUrl, { tablePrefix: 'gh_', schema: 'gatehouse' }, 'postgres, tables gatehouse.gh_*', (name) => `gatehouse.gh_${name}`);
    prefixed.push(sharingOneDatabase(own));
  }
  return [...engines, ...prefixed];
}

/** `own`, whose unmigrated databases are one for the suite, its schema dropped each time. */
function sharingOneDatabase(own: TestEngine): TestEngine {
  let shared: Promise<string> | undefined;
  return {
    ...own,
    async createDatabaseUrl() {
      const databaseUrl = await (shared ??= own.createDatabaseUrl());
      await admin(databaseUrl, `drop schema if exists ${own.tables.schema} cascade`);
      return databaseUrl;
    },
    async dropAll() {
      shared = undefined;
      await own.dropAll();
    },
  };
}

const plainName = (name: string) => name;

/**
 * `createMigratedDatabaseUrl` of an engine: one template per set of application migrations,
 * made by `fresh()` and migrated on first use, then `copy()`-ed for each call; `forget()` when
 * the engine has dropped its databases.
 */
function migratedCopies(tables: StoreTableOptions, fresh: () => Promise<string>, copy: (templateUrl: string) => Promise<string>) {
  const templates = new Map<ApplicationMigrations, Promise<string>>();
  const migrated = async (migrations: ApplicationMigrations) => {
    const templateUrl = await fresh();
    const store = await createStore(templateUrl, { ...tables, migrations });
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    return templateUrl;
  };
  return {
    async create(migrations: ApplicationMigrations = NO_MIGRATIONS): Promise<string> {
      let template = templates.get(migrations);
      if (template === undefined) templates.set(migrations, (template = migrated(migrations)));
      return copy(await template);
    },
    forget: () => templates.clear(),
  };
}

const NO_MIGRATIONS: ApplicationMigrations = {};

function sqliteEngine(tables: StoreTableOptions, label: string, table: (name: string) => string): TestEngine {
  const folders: string[] = [];
  const createDatabaseUrl = async () => {
    const folder = await mkdtemp(join(tmpdir(), 'gatehouse-test-'));
    folders.push(folder);
    return `sqlite:${join(folder, 'gatehouse.db')}`;
  };
  // A closed SQLite database is its one file: closing the last connection checkpoints the WAL.
  const copies = migratedCopies(tables, createDatabaseUrl, async (templateUrl) => {
    const databaseUrl = await createDatabaseUrl();
    await copyFile(templateUrl.slice('sqlite:'.length), databaseUrl.slice('sqlite:'.length));
    return databaseUrl;
  });
  return {
    engine: 'sqlite',
    label,
    tables,
    table,
    createDatabaseUrl,
    createMigratedDatabaseUrl: copies.create,
    async dropAll() {
      copies.forget();
      const created = folders.splice(0);
      await Promise.all(created.map((folder) => rm(folder, { recursive: true, force: true })));
    },
  };
}

function postgresEngine(adminUrl: string, tables: StoreTableOptions, label: string, table: (name: string) => string): TestEngine {
  const names: string[] = [];
  /** CREATE DATABASE under a new name (a copy of `template` when given). */
  const createDatabase = async (template?: string) => {
    // Lower-case letters and digits only: a valid identifier without quoting.
    const name = `gh_${randomBytes(8).toString('hex')}`;
    await admin(adminUrl, `create database ${name}${template === undefined ? '' : ` template ${template}`}`);
    names.push(name);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const copies = migratedCopies(tables, () => createDatabase(), (templateUrl) => createDatabase(new URL(templateUrl).pathname.slice(1)));
  return {
    engine: 'postgres',
    label,
    tables,
    table,
    createDatabaseUrl: () => createDatabase(),
    createMigratedDatabaseUrl: copies.create,
    async dropAll() {
      copies.forget();
      const created = names.splice(0);
      // WITH (FORCE), PostgreSQL 13+: ends connections a test forgot to close.
      await Promise.all(created.map((name) => admin(adminUrl, `drop database if exists ${name} with (force)`)));
    },
  };
}

async function admin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The admin URL when PostgreSQL answers; otherwise null (after the skip line) or a throw. */
async function probePostgres(): Promise<string | null> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  try {
    await admin(adminUrl, 'select 1');
    return adminUrl;
  } catch (error) {
    await missing('PostgreSQL', 'TEST_DATABASE_URL', redact(adminUrl), error);
    return null;
  }
}

async function probeRedis(): Promise<boolean> {
  const url = process.env.TEST_REDIS_URL ?? DEFAULT_REDIS_URL;
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // ioredis emits the cause (ECONNREFUSED…) as an event and rejects connect() with a bare
  // "Connection is closed"; keep the event's error for the message.
  let cause: unknown;
  redis.on('error', (error: unknown) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch (error) {
    await missing('Redis', 'TEST_REDIS_URL', redact(url), cause ?? error);
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Skips (one loud line a run) or, with REQUIRE_SERVICES=1, fails: the rule for every service a suite needs. */
export async function missing(service: string, variable: string, url: string, error: unknown): Promise<void> {
  const reason = (error instanceof Error ? error.message || error.name : String(error)).replace(/\.$/, '');
  if (process.env.REQUIRE_SERVICES === '1') {
    throw new Error(`${service} not reachable at ${url} (${variable}): ${reason}. REQUIRE_SERVICES=1 forbids skipping.`);
  }
  if (await firstInThisRun(service)) {
    process.stderr.write(
      `\nSKIPPED: ${service} suites — ${service} not reachable at ${url} (${reason}); set REQUIRE_SERVICES=1 to fail instead\n\n`,
    );
  }
}

/**
 * True for the first test file of this run to ask. Vitest runs each file in its own process
 * (pool "forks"), all children of one runner; a marker file named after the runner's pid keeps
 * the skip notice to one line instead of one per file.
 */
async function firstInThisRun(service: string): Promise<boolean> {
  const marker = join(tmpdir(), `gatehouse-skip-notice-${service.toLowerCase()}-${process.ppid}`);
  try {
    await writeFile(marker, '', { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** The URL without its password, fit for a log line. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
