/**
 * The store the plugin opens is the plugin's: when the registration fails after opening it (an
 * option it refuses, a migration that fails), it is closed before the error reaches the
 * application, leaving no connection to the database (PostgreSQL: no session in
 * pg_stat_activity; SQLite: no descriptor of the file in this process). A store the application
 * passes in is the application's, and stays open whatever happens.
 */
import Fastify from 'fastify';
import { readdirSync, readlinkSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { gatehouse, type GatehouseOptions, type PolicyName } from 'gatehouse-auth/fastify';
import { createStore } from 'gatehouse-auth/store';
import { type TestEngine, testEngines } from '../helpers/databases.ts';

const engines = await testEngines();
/** A policy name no application declares, as plain JavaScript may write it. */
const undeclared = 'Nowhere' as string as PolicyName;

/** How many connections this process holds to the database of `databaseUrl` right now. */
async function connections(databaseUrl: string): Promise<number> {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length);
    const descriptors = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    });
    return descriptors.filter((target) => target === file).length;
  }
  const url = new URL(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      'select count(*) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [url.pathname.slice(1)],
    );
    return Number(rows[0]!.count);
  } finally {
    await client.end();
  }
}

/** Connections end a moment after the pool lets them go: waits (at most 5 s) for none to be left. */
async function connectionsLeft(databaseUrl: string): Promise<number> {
  const deadline = Date.now() + 5_000;
  let count = await connections(databaseUrl);
  while (count > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
    count = await connections(databaseUrl);
  }
  return count;
}

/** A table of the application's named like one of Gatehouse's: the first migration fails on it. */
async function createClashingUsersTable(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const database = new Database(databaseUrl.slice('sqlite:'.length));
    database.exec('create table users (id integer primary key)');
    database.close();
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('create table users (id integer primary key)');
  await client.end();
}

async function register(options: GatehouseOptions): Promise<void> {
  const app = Fastify();
  try {
    await app.register(gatehouse, options).ready();
  } finally {
    await app.close().catch(() => undefined);
  }
}

describe.each(engines)('the store of a failed registration on $engine', (engine: TestEngine) => {
  afterAll(() => engine.dropAll());

  it('is closed when the plugin opened it and an option is refused after opening it', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    await expect(register({ settings: { databaseUrl }, fallbackPolicy: undeclared })).rejects.toThrow(/No authorization policy is named "Nowhere"/);
    expect(await connectionsLeft(databaseUrl)).toBe(0);
  });

  it('is closed when the plugin opened it and its migration fails', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    await createClashingUsersTable(databaseUrl);
    await expect(register({ settings: { databaseUrl } })).rejects.toThrow(/users/);
    expect(await connectionsLeft(databaseUrl)).toBe(0);
  });

  it('stays open when the application passed it in', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const store = await createStore(databaseUrl);
    try {
      await expect(register({ store, fallbackPolicy: undeclared })).rejects.toThrow(/No authorization policy is named "Nowhere"/);
      expect(await connections(databaseUrl)).toBeGreaterThan(0);
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
