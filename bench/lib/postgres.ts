import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database of the bench's own on the PostgreSQL server, dropped at the end of the run. */
export interface BenchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * The server the PostgreSQL scenarios run on: `TEST_DATABASE_URL` (as the tests use it), by default
 * the local server as user postgres. Only its host, port and credentials are used: the bench
 * creates a fresh database of its own there and drops it at the end.
 */
export function postgresAdminUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** `CREATE DATABASE gh_bench_<random>` on the admin URL's server; `drop()` removes it (idempotent). */
export async function freshPostgresDatabase(adminUrl = postgresAdminUrl()): Promise<BenchDatabase> {
  const name = `gh_bench_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.href,
    async drop() {
      if (dropped) return;
      dropped = true;
      await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
