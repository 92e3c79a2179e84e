// The WAL checkpoints of the service's SQLite file, on a thread of their own (see
// wal-checkpointer.ts). Plain JavaScript for the same reason as identity/argon2-worker.js: a
// worker thread starts without the main thread's TypeScript loader.
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const { filename, intervalMs, busyTimeoutMs } = workerData;
const database = new BetterSqlite3(filename, { timeout: busyTimeoutMs, fileMustExist: true });
const checkpoint = database.prepare('pragma wal_checkpoint(PASSIVE)');

/** One checkpoint; its result goes back only when asked for (`report`), a failure always. */
function run(report) {
  try {
    // PASSIVE: copies what no reader still needs, without waiting for readers or the writer.
    const [{ busy, log, checkpointed }] = checkpoint.all();
    if (report) parentPort.postMessage({ busy, log, checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}

const timer = setInterval(() => run(false), intervalMs);
parentPort.on('message', (message) => {
  if (message === 'now') run(true);
  if (message === 'stop') {
    clearInterval(timer);
    database.close();
    parentPort.close();
  }
});
