/**
 * Runs a snippet in several Node processes at once, each with its own Store on the same
 * database: the server and the CLI are separate processes, and SQLite's locks only show their
 * behaviour between connections that can wait independently (better-sqlite3 blocks its thread
 * while it waits, so two connections in one process cannot contend fairly).
 *
 * Each process opens `createStore(databaseUrl, tables)`, reports ready, and runs `body` only when every
 * process is ready, so that the calls really overlap. `body` is the text of an async function
 * body with `store` and `index` (0…count-1) in scope; what it returns must be JSON.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StoreTableOptions } from '../../src/store/kysely/table-naming.ts';

const createStoreUrl = new URL('../../src/store/create-store.ts', import.meta.url).href;
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export async function inSeparateProcesses<Result>(
  count: number,
  databaseUrl: string,
  body: string,
  tables: StoreTableOptions = {},
): Promise<Result[]> {
  const script = `
    import { createStore } from ${JSON.stringify(createStoreUrl)};
    const index = Number(process.env.PROCESS_INDEX);
    const store = await createStore(process.env.DATABASE_URL, JSON.parse(process.env.STORE_TABLES));
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    try {
      const result = await (async (store, index) => { ${body} })(store, index);
      process.stdout.write('result:' + JSON.stringify(result ?? null) + '\\n');
    } finally {
      await store.close();
      process.stdin.destroy();
    }
  `;
  const children = Array.from({ length: count }, (_, index) =>
    spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, STORE_TABLES: JSON.stringify(tables), PROCESS_INDEX: String(index) },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const outputs = children.map((child) => {
    let stdout = '';
    let stderr = '';
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('ready\n')) resolve();
      });
      child.on('exit', () => reject(new Error(`A process exited before it was ready:\n${stderr}`)));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<Result>((resolve, reject) => {
      child.on('exit', (code) => {
        const line = stdout.split('\n').find((text) => text.startsWith('result:'));
        if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice('result:'.length)) as Result);
        else reject(new Error(`A process failed (exit ${code}):\n${stderr}`));
      });
    });
    return { ready, done };
  });
  try {
    await Promise.all(outputs.map((output) => output.ready));
  } catch (error) {
    for (const child of children) child.kill();
    // Their failures are reported by the error above; keep them from surfacing as unhandled.
    for (const output of outputs) output.done.catch(() => {});
    throw error;
  }
  for (const child of children) child.stdin.write('go\n');
  return Promise.all(outputs.map((output) => output.done));
}
