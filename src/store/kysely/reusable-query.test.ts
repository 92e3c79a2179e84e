import { Kysely, SqliteDialect, type Generated } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ReusableQuery } from './reusable-query.ts';

interface Db {
  items: { id: Generated<number>; name: string; size: number };
}

function sqlite(): { db: Kysely<Db>; statements: string[] } {
  const statements: string[] = [];
  const database = new BetterSqlite3(':memory:');
  database.exec('create table items (id integer primary key, name text not null, size integer not null)');
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database }), log: (event) => void statements.push(event.query.sql) });
  return { db, statements };
}

describe('ReusableQuery', () => {
  it('builds once and binds each run’s own values, constants of the query kept in place', async () => {
    const { db } = sqlite();
    let builds = 0;
    const insert = new ReusableQuery((k: Kysely<Db>, p: { name: string; size: number }) => {
      builds++;
      return k.insertInto('items').values({ name: p.name, size: p.size }).returning(['id', 'name', 'size']);
    });
    // A constant (3) between two parameters: its slot keeps the constant.
    const find = new ReusableQuery((k: Kysely<Db>, p: { name: string; min: number }) =>
      k.selectFrom('items').select(['name', 'size']).where('name', '=', p.name).where('size', '>', 3).where('size', '>=', p.min),
    );

    expect(await insert.first(db, { name: 'a', size: 5 })).toEqual({ id: 1, name: 'a', size: 5 });
    expect(await insert.first(db, { name: 'b', size: 2 })).toEqual({ id: 2, name: 'b', size: 2 });
    expect(await insert.first(db, { name: 'b', size: 9 })).toEqual({ id: 3, name: 'b', size: 9 });
    expect(builds).toBe(1);

    expect(await find.rows(db, { name: 'b', min: 0 })).toEqual([{ name: 'b', size: 9 }]);
    expect(await find.rows(db, { name: 'a', min: 6 })).toEqual([]);
    expect(await find.rows(db, { name: 'a', min: 5 })).toEqual([{ name: 'a', size: 5 }]);
  });

  it('keeps values bound, never spliced into the SQL', async () => {
    const { db, statements } = sqlite();
    const find = new ReusableQuery((k: Kysely<Db>, p: { name: string }) => k.selectFrom('items').selectAll().where('name', '=', p.name));
    const hostile = "x' or '1'='1";
    await db.insertInto('items').values({ name: 'a', size: 1 }).execute();
    expect(await find.rows(db, { name: hostile })).toEqual([]);
    expect(statements.at(-1)).toBe('select * from "items" where "name" = ?');
  });

  it('runs inside a transaction on the transaction’s connection', async () => {
    const { db } = sqlite();
    const insert = new ReusableQuery((k: Kysely<Db>, p: { name: string }) => k.insertInto('items').values({ name: p.name, size: 1 }));
    await expect(
      db.transaction().execute(async (trx) => {
        await insert.execute(trx, { name: 'rolled back' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.selectFrom('items').selectAll().execute()).toEqual([]);
  });
});
