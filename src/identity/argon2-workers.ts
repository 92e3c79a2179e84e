import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** What @node-rs/argon2 takes; the worker passes it through unchanged. */
export interface Argon2Options {
  readonly algorithm: number;
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

type Task =
  | { readonly operation: 'hash'; readonly password: string; readonly options: Argon2Options }
  | { readonly operation: 'verify'; readonly password: string; readonly storedHash: string };

interface Pending {
  readonly task: Task;
  readonly resolve: (result: string | boolean) => void;
  readonly reject: (error: Error) => void;
}

interface Reply {
  readonly id: number;
  readonly result?: string | boolean;
  readonly error?: string;
}

/**
 * The nice value of the hashing threads: a request that needs no hash runs as soon as it arrives,
 * even on a core busy hashing, instead of waiting for the hashing thread's time slice to end.
 * Linux weighs nice 19 at 15 against 1024 for normal threads. The core is never left idle for it:
 * hashing takes every cycle the event loop does not want.
 */
const HASHING_NICE = 19;

/**
 * Argon2id off the event loop, on worker threads of their own at low priority, one hash per
 * usable core at a time (docs/decisions/0019-hashing-slots-and-sqlite-sync.md). More at once
 * would not finish sooner — each needs a whole core — but would hold 19 MiB each and thrash the
 * cache. Tasks queue in arrival order. Workers start with the first task and do not keep the
 * process alive while idle, so a command that never hashes never starts one.
 */
export class Argon2Workers {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private started = 0;
  private nextId = 0;
  private closed = false;

  constructor(private readonly size = availableParallelism()) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`Argon2Workers need at least one thread, not ${size}.`);
  }

  hash(password: string, options: Argon2Options): Promise<string> {
    return this.submit({ operation: 'hash', password, options }) as Promise<string>;
  }

  /** False for a wrong password; rejects for a hash the library cannot read. */
  verify(storedHash: string, password: string): Promise<boolean> {
    return this.submit({ operation: 'verify', password, storedHash }) as Promise<boolean>;
  }

  /** Stops every thread; tasks still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('The hashing threads were stopped.');
    for (const pending of [...this.busy.values(), ...this.queue.splice(0)]) pending.reject(stopped);
    const workers = [...this.idle.splice(0), ...this.busy.keys()];
    this.busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** Tasks running now and waiting, for tests and metrics. */
  get load(): { readonly active: number; readonly waiting: number } {
    return { active: this.busy.size, waiting: this.queue.length };
  }

  private submit(task: Task): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('The hashing threads were stopped.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? this.startWorker();
      if (worker === undefined) return;
      const pending = this.queue.shift() as Pending;
      this.busy.set(worker, pending);
      worker.ref();
      worker.postMessage({ id: this.nextId++, ...pending.task });
    }
  }

  private startWorker(): Worker | undefined {
    if (this.started >= this.size) return undefined;
    this.started++;
    const worker = new Worker(new URL('./argon2-worker.js', import.meta.url), { workerData: { nice: HASHING_NICE }, execArgv: [] });
    worker.on('message', (reply: Reply) => this.finished(worker, reply));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`The hashing thread stopped (exit code ${code}).`)));
    return worker;
  }

  private finished(worker: Worker, reply: Reply): void {
    const pending = this.busy.get(worker);
    this.busy.delete(worker);
    worker.unref();
    this.idle.push(worker);
    if (reply.error !== undefined) pending?.reject(new Error(reply.error));
    else pending?.resolve(reply.result as string | boolean);
    this.dispatch();
  }

  /** A thread that died fails its task only; the next task starts a fresh one. */
  private lost(worker: Worker, error: Error): void {
    const pending = this.busy.get(worker);
    const idleAt = this.idle.indexOf(worker);
    if (pending === undefined && idleAt === -1) return; // already accounted for ('error' precedes 'exit')
    this.busy.delete(worker);
    if (idleAt !== -1) this.idle.splice(idleAt, 1);
    this.started--;
    pending?.reject(error);
    this.dispatch();
  }
}

/** One pool per process: every hasher in it shares the cores. */
export const argon2Workers = new Argon2Workers();
