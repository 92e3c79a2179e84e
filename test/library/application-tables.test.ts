/**
 * An application's own tables in Gatehouse's database, through the plugin: its migrations run at
 * start after Gatehouse's, its routes query them on the store's connections, and a database it
 * cannot reach answers 503 as Gatehouse's own routes do. On SQLite: the engines are covered by
 * test/contracts/shared-database.contract.test.ts.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Generated, Kysely } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { type ApplicationMigrations, createStore } from 'gatehouse-auth/store';
import { bearer, json } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

interface NoteTables {
  notes: { id: Generated<number>; author_id: number; text: string };
}

const migrations: ApplicationMigrations = {
  '0001-notes': {
    async up(db, { tableName }) {
      await db.schema
        .createTable('notes')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('author_id', 'integer', (c) => c.notNull().references(`${tableName('users')}.id`).onDelete('cascade'))
        .addColumn('text', 'text', (c) => c.notNull())
        .execute();
    },
  },
};

let folder: string;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'gatehouse-application-tables-'));
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** The application: Gatehouse opens the database (under a prefix) and migrates both; the notes routes use its connections. */
async function notesApplication(databaseUrl: string): Promise<FastifyInstance> {
  const settings = { databaseUrl };
  const app = Fastify(serverOptions(configFromSettings(settings)));
  apps.push(app);
  await app.register(gatehouse, { settings, tablePrefix: 'gh_', migrations });
  const notes = (): Kysely<NoteTables> => app.gatehouse.store.database.kysely<NoteTables>();
  app.post<{ Body: { text: string } }>('/notes', async (request, reply) => {
    const note = await notes()
      .insertInto('notes')
      .values({ author_id: Number(request.user.subject), text: request.body.text })
      .returning(['id', 'text'])
      .executeTakeFirstOrThrow();
    return reply.code(201).send(note);
  });
  app.get('/notes', async (request) => notes().selectFrom('notes').select(['id', 'text']).where('author_id', '=', Number(request.user.subject)).execute());
  await app.ready();
  return app;
}

describe('An application’s own tables through the plugin', () => {
  it('migrates them at start, keeps them across restarts, and lets their rows go with the user', async () => {
    const databaseUrl = `sqlite:${join(folder, 'notes.db')}`;
    const first = await notesApplication(databaseUrl);
    const user = await first.gatehouse.users.create({ email: 'ada@example.com', password: 'correct horse battery staple', emailConfirmed: true });
    const { token } = await gatehouseServices(first.gatehouse).accessTokens.issue(user);
    const created = await first.inject({ method: 'POST', url: '/notes', headers: bearer(token), payload: { text: 'first' } });
    expect(created.statusCode).toBe(201);
    expect(json(created)).toEqual({ id: 1, text: 'first' });
    expect((await first.inject({ method: 'POST', url: '/notes', payload: { text: 'anonymous' } })).statusCode).toBe(401);
    await first.close();

    // A second start migrates nothing again and finds the note.
    const second = await notesApplication(databaseUrl);
    expect(json(await second.inject({ url: '/notes', headers: bearer(token) }))).toEqual([{ id: 1, text: 'first' }]);
    const recorded = await second.gatehouse.store.database.kysely<any>().selectFrom('application_migration').select('name').execute();
    expect(recorded).toEqual([{ name: '0001-notes' }]);
    await second.gatehouse.users.delete(user.id);
    expect(await second.gatehouse.store.database.kysely<NoteTables>().selectFrom('notes').selectAll().execute()).toEqual([]);
  });

  it('refuses migrations beside a store the application opened itself, which carries its own', async () => {
    const store = await createStore('sqlite::memory:');
    try {
      const app = Fastify();
      apps.push(app);
      await expect(app.register(gatehouse, { store, migrations }).ready()).rejects.toThrow(
        /migrations are for the store Gatehouse opens; a given store carries its own: createStore\(url, \{ tablePrefix, schema, migrations \}\)/,
      );
    } finally {
      await store.close();
    }
  });

  it('answers 503 problem+json when a query of the application’s own cannot reach its database', async () => {
    const settings = { databaseUrl: 'sqlite::memory:' };
    const app = Fastify(serverOptions(configFromSettings(settings)));
    apps.push(app);
    await app.register(gatehouse, { settings });
    // The application's own pool, on a port where nothing listens.
    const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2_000 });
    app.addHook('onClose', () => pool.end());
    app.get('/reports', { config: { authorization: { allowAnonymous: true } } }, async () => (await pool.query('select 1')).rows);
    const response = await app.inject({ url: '/reports' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toMatchObject({ status: 503, code: 'GH_STORE_UNAVAILABLE' });
    expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});
