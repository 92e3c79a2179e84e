/**
 * A service's database read directly, bypassing the store, for what a test checks after the
 * process is gone: SQLite through better-sqlite3 (opened read-write, so that a crashed writer's
 * WAL is recovered as the next process would), PostgreSQL through pg.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export async function queryRows<Row>(databaseUrl: string, statement: string, parameters: readonly unknown[] = []): Promise<Row[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { fileMustExist: true });
    try {
      // pg's $1 placeholders, in order, as SQLite's ?.
      return db.prepare(statement.replace(/\$\d+/g, '?')).all(...parameters) as Row[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(statement, [...parameters])).rows as Row[];
  } finally {
    await client.end();
  }
}
