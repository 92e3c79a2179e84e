import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { sqliteDialect } from './sqlite-dialect.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function databaseFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'gatehouse-wal-'));
  directories.push(directory);
  return join(directory, 'wal.db');
}

/** The rows the database file holds without its WAL: what checkpoints have copied into it. */
function rowsInMainFile(filename: string): number | null {
  const copy = `${filename}.copy`;
  copyFileSync(filename, copy);
  const database = new BetterSqlite3(copy, { readonly: true });
  try {
    const table = database.prepare("select 1 from sqlite_master where name = 'items'").get();
    return table === undefined ? null : (database.prepare('select count(*) as n from items').get() as { n: number }).n;
  } finally {
    database.close();
    rmSync(copy);
  }
}

describe('WalCheckpointer', () => {
  it('copies the WAL into the database file from its own connection, while the writer checkpoints nothing itself', async () => {
    const filename = databaseFile();
    const writer = new BetterSqlite3(filename);
    onTestFinished(() => {
      writer.close();
    });
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table items (id integer primary key, body text)');
    const insert = writer.prepare('insert into items (body) values (?)');
    for (let i = 0; i < 300; i++) insert.run('x'.repeat(500));
    expect(rowsInMainFile(filename)).toBeNull();

    const errors: string[] = [];
    const checkpointer = new WalCheckpointer({ filename, intervalMs: 3_600_000, busyTimeoutMs: 5000, onError: (message) => errors.push(message) });
    const result = await checkpointer.checkpointNow();
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThan(30);
    expect(result.checkpointed).toBe(result.log);
    expect(rowsInMainFile(filename)).toBe(300);

    // The writer goes on beside it.
    insert.run('after');
    expect((await checkpointer.checkpointNow()).checkpointed).toBeGreaterThan(0);
    expect(rowsInMainFile(filename)).toBe(301);
    await checkpointer.stop();
    expect(errors).toEqual([]);
  });

  it('reports a checkpoint that fails instead of throwing on the event loop', async () => {
    const errors: string[] = [];
    const checkpointer = new WalCheckpointer({ filename: join(databaseFile(), 'missing', 'x.db'), busyTimeoutMs: 100, onError: (message) => errors.push(message) });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (errors.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    expect(errors[0]).toMatch(/directory does not exist|unable to open|SQLITE_CANTOPEN/i);
    await checkpointer.stop();
  });
});

describe('sqliteDialect', () => {
  async function autocheckpoint(backgroundCheckpoints: boolean): Promise<number> {
    const db = new Kysely<Record<string, never>>({
      dialect: sqliteDialect(databaseFile(), backgroundCheckpoints ? { backgroundCheckpoints: { onError: () => {} } } : {}),
    });
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
      return rows[0]?.wal_autocheckpoint ?? -1;
    } finally {
      await db.destroy();
    }
  }

  it('leaves checkpoints to the background thread when asked, to SQLite otherwise', async () => {
    expect(await autocheckpoint(true)).toBe(0);
    expect(await autocheckpoint(false)).toBe(1000);
  });
});
