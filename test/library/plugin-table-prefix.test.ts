/**
 * The plugin opening its own store under a table prefix, in a database that already has the
 * application's `users`; and refusing a prefix for a store it is given. On SQLite: the naming
 * itself is pinned on both engines by test/contracts/shared-database.contract.test.ts.
 */
import BetterSqlite3 from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { createStore } from 'gatehouse-auth/store';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function databaseFile(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'gatehouse-plugin-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return join(folder, 'application.db');
}

function fastify(): FastifyInstance {
  const app = Fastify(serverOptions(configFromSettings({})));
  cleanups.push(() => app.close());
  return app;
}

describe('The gatehouse plugin with tablePrefix', () => {
  it('opens, migrates and uses its store in gh_ tables beside the application’s users', async () => {
    const file = await databaseFile();
    const database = new BetterSqlite3(file);
    cleanups.push(async () => void database.close());
    database.exec(`create table users (id integer primary key, name text not null); insert into users values (1, 'the application’s user')`);

    const app = fastify();
    await app.register(gatehouse, { settings: { databaseUrl: `sqlite:${file}` }, tablePrefix: 'gh_' });
    await app.ready();
    await app.gatehouse.users.create({ email: 'ada@example.com', password: 'a long passphrase here', emailConfirmed: true });

    expect(database.prepare('select * from users').all()).toEqual([{ id: 1, name: 'the application’s user' }]);
    expect(database.prepare('select email from gh_users').all()).toEqual([{ email: 'ada@example.com' }]);
  });

  it('refuses a table prefix beside a store it is given, which carries its own', async () => {
    const store = await createStore('sqlite::memory:');
    cleanups.push(() => store.close());
    const app = fastify();
    await expect(app.register(gatehouse, { store, tablePrefix: 'gh_' })).rejects.toThrow(/a given store carries its own/);
  });
});
