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
 * Tasks a hashing thread holds at once, and answers together when they finish back to back.
 * Every answer wakes the event loop, which then runs on caches the 19 MiB Argon2id pass evicted:
 * under sign-in load, answering four at a time halved the event loop's time per sign-in, eight
 * took another ~15 % off it (decisions 0027 and 0029). A thread answers as soon as it has nothing
 * more to do, so a lone task waits for nothing.
 */
const TASKS_PER_THREAD = 8;

/**
 * How long, at most, a finished answer waits for the ones after it. It bounds the wait in time,
 * not in hashes: where a hash takes ~5 ms, eight answers go out together; where it takes ~12 ms,
 * four, as before (decision 0029).
 */
const MAX_HOLD_MS = 50;

/**
 * Argon2id off the event loop, on worker threads of their own at low priority, one per usable
 * core, each hashing one task at a time (docs/decisions/0019-hashing-slots-and-sqlite-sync.md).
 * More threads would not finish sooner — each hash needs a whole core — but would hold 19 MiB each
 * and thrash the cache. A thread is handed up to `TASKS_PER_THREAD` tasks, works through them in
 * order and answers those that finish back to back in one message, none held longer than
 * `MAX_HOLD_MS` (decisions 0027 and 0029); the rest queue here in arrival order. Threads start with
 * the first task and do not keep the process alive while idle, so a command that never hashes
 * never starts one.
 */
export class Argon2Workers {
  /** Every started thread with the tasks sent to it, oldest first: it answers in that order. */
  private readonly sent = new Map<Worker, Pending[]>();
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly size = availableParallelism(),
    private readonly tasksPerThread = TASKS_PER_THREAD,
    private readonly maxHoldMs = MAX_HOLD_MS,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`Argon2Workers need at least one thread, not ${size}.`);
    if (!Number.isInteger(tasksPerThread) || tasksPerThread < 1) throw new Error(`A hashing thread takes at least one task, not ${tasksPerThread}.`);
    if (!(maxHoldMs >= 0)) throw new Error(`An answer cannot be held for ${maxHoldMs} ms.`);
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
    for (const pending of [...[...this.sent.values()].flat(), ...this.queue.splice(0)]) pending.reject(stopped);
    const workers = [...this.sent.keys()];
    this.sent.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** Tasks handed to a thread and tasks waiting for one, for tests and metrics. */
  get load(): { readonly active: number; readonly waiting: number } {
    let active = 0;
    for (const tasks of this.sent.values()) active += tasks.length;
    return { active, waiting: this.queue.length };
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
      const worker = this.leastLoaded();
      if (worker === undefined) return;
      const pending = this.queue.shift() as Pending;
      const tasks = this.sent.get(worker) as Pending[];
      tasks.push(pending);
      if (tasks.length === 1) worker.ref();
      worker.postMessage({ id: this.nextId++, ...pending.task });
    }
  }

  /** An idle thread, else a new one while there are fewer than `size`, else the least busy one with room. */
  private leastLoaded(): Worker | undefined {
    let best: Worker | undefined;
    let fewest = this.tasksPerThread;
    for (const [worker, tasks] of this.sent) {
      if (tasks.length < fewest) [best, fewest] = [worker, tasks.length];
    }
    if (fewest === 0) return best;
    return this.sent.size < this.size ? this.startWorker() : best;
  }

  private startWorker(): Worker {
    const worker = new Worker(new URL('./argon2-worker.js', import.meta.url), {
      workerData: { nice: HASHING_NICE, repliesPerMessage: this.tasksPerThread, maxHoldMs: this.maxHoldMs },
      execArgv: [],
    });
    this.sent.set(worker, []);
    worker.on('message', (replies: Reply[]) => this.finished(worker, replies));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`The hashing thread stopped (exit code ${code}).`)));
    return worker;
  }

  /** The thread answers its tasks in the order it was given them. */
  private finished(worker: Worker, replies: readonly Reply[]): void {
    const tasks = this.sent.get(worker);
    if (tasks === undefined) return;
    const done = tasks.splice(0, replies.length);
    if (tasks.length === 0) worker.unref();
    this.dispatch();
    replies.forEach((reply, at) => {
      if (reply.error !== undefined) done[at]?.reject(new Error(reply.error));
      else done[at]?.resolve(reply.result as string | boolean);
    });
  }

  /** A thread that died fails its own tasks only; the next task starts a fresh one. */
  private lost(worker: Worker, error: Error): void {
    const tasks = this.sent.get(worker);
    if (tasks === undefined) return; // already accounted for ('error' precedes 'exit')
    this.sent.delete(worker);
    for (const pending of tasks) pending.reject(error);
    this.dispatch();
  }
}

/** One pool per process: every hasher in it shares the cores. */
export const argon2Workers = new Argon2Workers();
