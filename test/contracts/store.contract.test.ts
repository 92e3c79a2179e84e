/**
 * The Store as a whole: migrations, readiness, and how connection problems surface. The ports'
 * own behaviour is pinned by the other `*.contract.test.ts` files.
 */
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.ts';
import { StoreUnavailableError, type NewUser, type Store } from '../../src/store/ports.ts';
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

/** Opens a store, runs `use`, closes it whatever happens. */
async function withStore<T>(databaseUrl: string, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await createStore(databaseUrl);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

describe.each(engines)('Store on $engine', (engine) => {
  afterAll(() => engine.dropAll());

  it('reports the engine it runs on', async () => {
    await withStore(await engine.createDatabaseUrl(), async (store) => expect(store.engine).toBe(engine.engine));
  });

  it('tells a data version only where it costs no round trip (SQLite)', async () => {
    await withStore(await engine.createDatabaseUrl(), async (store) => expect(store.dataVersion !== null).toBe(engine.engine === 'sqlite'));
  });

  it('answers ping once it can reach its database', async () => {
    await withStore(await engine.createDatabaseUrl(), (store) => expect(store.ping()).resolves.toBeUndefined());
  });

  it('migrates a second time without error and without touching the data', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    await withStore(databaseUrl, async (store) => {
      await store.migrate();
      await store.users.create(ada);
    });
    await withStore(databaseUrl, async (store) => {
      await store.migrate();
      expect((await store.users.list()).map((user) => user.email)).toEqual(['ada@example.com']);
    });
  });

  it('migrates an empty database from four processes at once: all succeed and the schema is whole', async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    const results = await inSeparateProcesses<string>(4, databaseUrl, `await store.migrate(); return 'migrated';`);
    expect(results).toEqual(['migrated', 'migrated', 'migrated', 'migrated']);
    await withStore(databaseUrl, async (store) => {
      await store.migrate();
      const user = await store.users.create(ada);
      expect(user.roles).toEqual(['admin']);
    });
  });
});

describe('Store on sqlite files', () => {
  const folders: string[] = [];
  const tempFolder = async () => {
    const folder = await mkdtemp(join(tmpdir(), 'gatehouse-store-'));
    folders.push(folder);
    return folder;
  };
  afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

  it('resolves a relative sqlite: path against the working directory and creates its folders', async () => {
    const file = join(await tempFolder(), 'nested', 'deeper', 'gatehouse.db');
    await withStore(`sqlite:${relative(process.cwd(), file)}`, (store) => store.migrate());
    expect((await stat(file)).isFile()).toBe(true);
  });

  it('puts the file in WAL mode, so the CLI can read while the server writes', async () => {
    const file = join(await tempFolder(), 'gatehouse.db');
    await withStore(`sqlite:${file}`, (store) => store.migrate());
    // Bytes 18 and 19 of the SQLite header are the read and write versions: 2 means WAL.
    const header = Buffer.alloc(20);
    const handle = await open(file, 'r');
    await handle.read(header, 0, 20, 0);
    await handle.close();
    expect([header[18], header[19]]).toEqual([2, 2]);
  });

  it('serves sqlite::memory: as a private in-memory database', async () => {
    await withStore('sqlite::memory:', async (store) => {
      await store.migrate();
      expect((await store.users.create(ada)).id).toBe(1);
    });
  });

  it('tells its data version: unchanged by reads, moved by its own writes at once', async () => {
    await withStore('sqlite::memory:', async (store) => {
      const version = store.dataVersion!;
      expect(version.current()).toBeNull(); // not open yet
      await store.migrate();
      const author = await store.users.create(ada);
      const before = version.current();
      expect(before).not.toBeNull();
      await store.audit.list({ limit: 10 });
      await store.users.findById(author.id);
      await nextTurn();
      expect(version.current()).toBe(before);
      await store.users.addRole(author.id, 'editor');
      // Same turn: this connection's own write shows without waiting for anything.
      const afterCreate = version.current()!;
      expect(afterCreate).toBeGreaterThan(before!);
      await store.users.delete(author.id); // the role link goes by cascade, in the same write
      expect(version.current()!).toBeGreaterThan(afterCreate);
    });
  });

  it("moves its data version on another process's commit, from the next turn of the event loop", async () => {
    const databaseUrl = `sqlite:${join(await tempFolder(), 'gatehouse.db')}`;
    await withStore(databaseUrl, async (store) => {
      await store.migrate();
      const author = await store.users.create(ada);
      await store.audit.list({ limit: 10 });
      await nextTurn();
      const before = store.dataVersion!.current();
      await inSeparateProcesses(1, databaseUrl, `await store.users.addRole(${author.id}, 'elsewhere');`);
      await nextTurn();
      expect(store.dataVersion!.current()).toBeGreaterThan(before!);
      // A process that only reads changes nothing.
      const after = store.dataVersion!.current();
      await inSeparateProcesses(1, databaseUrl, `return (await store.audit.list({ limit: 5 })).length;`);
      await nextTurn();
      expect(store.dataVersion!.current()).toBe(after);
    });
  });

  it('reports a file that cannot be opened as StoreUnavailableError from the first call', async () => {
    const folder = await tempFolder();
    // A folder where the database file should be: SQLITE_CANTOPEN.
    await withStore(`sqlite:${folder}`, (store) => expect(store.users.findById(1)).rejects.toBeInstanceOf(StoreUnavailableError));
    // A plain file where its folder should be: the folder cannot be created.
    await writeFile(join(folder, 'not-a-folder'), '');
    await withStore(`sqlite:${join(folder, 'not-a-folder', 'gatehouse.db')}`, (store) =>
      expect(store.migrate()).rejects.toBeInstanceOf(StoreUnavailableError),
    );
  });
});

/** Lets the event loop turn once (what separates two requests that arrive apart). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('Store on an unreachable PostgreSQL', () => {
  // Port 1 refuses connections on any machine; this needs no PostgreSQL running.
  const unreachable = 'postgres://postgres@127.0.0.1:1/gatehouse';

  it('rejects port methods, migrate and ping with StoreUnavailableError', async () => {
    await withStore(unreachable, async (store) => {
      await expect(store.users.findById(1)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.keyRing.loadSecrets()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.migrate()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });

  it('keeps the driver error as the cause', async () => {
    await withStore(unreachable, async (store) => {
      const error = await store.ping().catch((caught: unknown) => caught);
      expect((error as StoreUnavailableError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    });
  });
});

describe.skipIf(!engines.some((engine) => engine.engine === 'postgres'))('Store on PostgreSQL that drops connections', () => {
  const postgres = engines.find((engine) => engine.engine === 'postgres')!;
  afterAll(() => postgres.dropAll());

  it('keeps working after the server ends its idle connections (no crash, the next call reconnects)', async () => {
    const databaseUrl = await postgres.createDatabaseUrl();
    await withStore(databaseUrl, async (store) => {
      await store.migrate();
      await store.users.create(ada);
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
        );
        expect(rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      // Let the pool see the terminations it was told about.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await store.users.list()).map((user) => user.email)).toEqual(['ada@example.com']);
    });
  });
});
