/**
 * Reads a test database directly (not through the store's ports), as an attacker holding a dump
 * would: every row of every table, each cell as text. For "stored only as a hash" checks.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export interface DumpedRow {
  readonly table: string;
  readonly row: Record<string, string | null>;
}

export async function dumpDatabase(databaseUrl: string): Promise<DumpedRow[]> {
  return databaseUrl.startsWith('sqlite:') ? dumpSqlite(databaseUrl.slice('sqlite:'.length)) : dumpPostgres(databaseUrl);
}

/** The rows of one table. */
export async function tableRows(databaseUrl: string, table: string): Promise<Record<string, string | null>[]> {
  return (await dumpDatabase(databaseUrl)).filter((entry) => entry.table === table).map((entry) => entry.row);
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return `${value.toString('hex')} ${value.toString('base64')} ${value.toString('latin1')}`;
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function textRow(row: Record<string, unknown>): Record<string, string | null> {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column, text(value)]));
}

function dumpSqlite(path: string): DumpedRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[];
    return tables.flatMap(({ name }) =>
      (db.prepare(`select * from "${name.replaceAll('"', '""')}"`).all() as Record<string, unknown>[]).map((row) => ({ table: name, row: textRow(row) })),
    );
  } finally {
    db.close();
  }
}

async function dumpPostgres(databaseUrl: string): Promise<DumpedRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
    );
    const rows: DumpedRow[] = [];
    for (const { table_name: name } of tables.rows) {
      const result = await client.query<Record<string, unknown>>(`select * from "${name.replaceAll('"', '""')}"`);
      for (const row of result.rows) rows.push({ table: name, row: textRow(row) });
    }
    return rows;
  } finally {
    await client.end();
  }
}
