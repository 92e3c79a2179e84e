import { Worker } from 'node:worker_threads';

/** What one background checkpoint did, in WAL frames (SQLite's `wal_checkpoint` row). */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

export interface WalCheckpointerOptions {
  /** The database file (not `:memory:`); it must exist and be in WAL mode. */
  readonly filename: string;
  /** @default 1000 */
  readonly intervalMs?: number;
  readonly busyTimeoutMs: number;
  /** A checkpoint failed (it is tried again at the next interval). */
  readonly onError?: (message: string) => void;
}

/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database file
 * and fsyncs both; SQLite runs one automatically inside the commit that crosses 1,000 pages of
 * WAL, on the connection that commits — the service's one connection, whose driver is
 * synchronous. Under sign-in load that was a pause of ~5 ms about once a second, on the thread
 * that answers every request (decision 0026). The service's connection therefore turns automatic
 * checkpoints off, and this thread, on a connection of its own, checkpoints every `intervalMs`
 * (PASSIVE: it never waits for the writer or a reader, and the writer never waits for it). The
 * thread does not keep the process alive.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly waiting: ((result: CheckpointResult) => void)[] = [];
  private readonly exited: Promise<void>;

  constructor(options: WalCheckpointerOptions) {
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), {
      workerData: { filename: options.filename, intervalMs: options.intervalMs ?? 1000, busyTimeoutMs: options.busyTimeoutMs },
      execArgv: [],
    });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: CheckpointResult | { error: string }) => {
      if ('error' in message) options.onError?.(message.error);
      else for (const resolve of this.waiting.splice(0)) resolve(message);
    });
    this.worker.on('error', (error) => options.onError?.(error.message));
  }

  /**
   * Checkpoints now, without waiting for the interval, and resolves with that checkpoint's result
   * (the periodic ones report nothing back unless they fail: no message a second for the event loop).
   */
  checkpointNow(): Promise<CheckpointResult> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.worker.postMessage('now');
    });
  }

  /**
   * Asks the thread to close its connection and end; resolves when it has. Whichever connection
   * closes last checkpoints what is left and removes the WAL (SQLite does).
   */
  stop(): Promise<void> {
    this.worker.postMessage('stop');
    return this.exited;
  }
}
