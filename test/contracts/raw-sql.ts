/**
 * One SQL statement straight through the driver, beside the Store under test: for a contract
 * test that must break the schema (drop a table) to see that a write fails whole.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export async function executeRawSql(databaseUrl: string, statement: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const database = new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { timeout: 5000 });
    try {
      database.exec(statement);
    } finally {
      database.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
