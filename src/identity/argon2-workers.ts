import { Worker } from 'node:worker_threads';
import { usableCores } from '../platform/cpu-quota.ts';
import { HashingBusyError } from './hashing-busy.ts';

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
  /** Whose task it is (an opaque key from the caller, `ANONYMOUS_CLIENT` when none was given). */
  readonly client: string;
  /** `performance.now()` at submission, for the wait observers. */
  readonly queuedAt: number;
  readonly resolve: (result: string | boolean) => void;
  readonly reject: (error: Error) => void;
}

interface Reply {
  readonly id: number;
  readonly result?: string | boolean;
  readonly error?: string;
  /** How long the thread took over this task, in ms of wall time (preemption included). */
  readonly ms?: number;
}

export interface Argon2WorkersOptions {
  /** Threads at most. @default the usable cores (cgroup quota included) */
  readonly threads?: number;
  /** Tasks waiting for a thread beyond which a new one is refused. @default `QUEUE_PER_THREAD` × threads */
  readonly queueMax?: number;
  readonly tasksPerThread?: number;
  readonly maxHoldMs?: number;
}

/**
 * The nice value of the hashing threads. Linux weighs nice 5 at 335 against 1024 for the event
 * loop: on a core both want, hashing gets about a quarter, so a burst of sign-ins cannot take the
 * API's core and a saturated API cannot stop sign-ins (at nice 19, weight 15, a sign-in beside a
 * saturating `GET /me` waited 6–8 s at p99; at nice 5, under 0.2 s; `/health` beside sign-ins kept
 * the same 6–7 ms p99: decision 0055). The core is never left idle for it: hashing takes every
 * cycle the event loop does not want.
 */
const HASHING_NICE = 5;

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
 * Tasks that may wait for a thread, per thread, by default: four times what a thread holds. At a
 * 5–12 ms hash that is 0.2–0.4 s of queue on top of the threads' own backlog, so a burst of a few
 * dozen sign-ins per core is answered within half a second, not refused; a longer queue only
 * keeps people waiting for answers their clients may have given up on (decision 0054).
 */
export const QUEUE_PER_THREAD = 4 * TASKS_PER_THREAD;

/** The client of a task submitted without one (the CLI, start-up work): one share for all of them. */
const ANONYMOUS_CLIENT = '';

/** The hash's time before any was measured: a middle figure of the machines measured so far. */
const FIRST_HASH_MS = 10;

/**
 * Argon2id off the event loop, on worker threads of their own at low priority, one per usable
 * core, each hashing one task at a time (docs/decisions/0019-hashing-slots-and-sqlite-sync.md).
 * More threads would not finish sooner — each hash needs a whole core — but would hold 19 MiB each
 * and thrash the cache. A thread is handed up to `TASKS_PER_THREAD` tasks, works through them in
 * order and answers those that finish back to back in one message, none held longer than
 * `MAX_HOLD_MS` (decisions 0027 and 0029). Threads start with the first task and do not keep the
 * process alive while idle, so a command that never hashes never starts one.
 *
 * The rest wait here, each in its client's line (an opaque key the caller passes: the HTTP layer
 * gives the client's address), and the lines take turns for the threads: one client's hundred
 * queued sign-ins do not stand in front of another's one. Beyond `queueMax` waiting tasks, the
 * client holding the most tasks (waiting or held by a thread) loses its newest waiting one,
 * refused with `HashingBusyError`; a newcomer holding fewer is never the one refused, so a flood
 * from one client is refused while everybody else's task gets in (decisions 0054 and 0066). A
 * thread, too, hashes the tasks it holds in turns by client, and answers each by its id: a task
 * handed over behind a flood's is hashed after the one running, not after all of them.
 */
export class Argon2Workers {
  /** Every started thread with the tasks sent to it, by id: it hashes them in turns by client, and answers each by its id. */
  private readonly sent = new Map<Worker, Map<number, Pending>>();
  /** Each client's waiting tasks, oldest first; the clients in turn order (the next to be served first). */
  private readonly lines = new Map<string, Pending[]>();
  /** Tasks waiting in every line. */
  private waiting = 0;
  /** Each client's tasks waiting or held by a thread, for the choice of whom to refuse. */
  private readonly shares = new Map<string, number>();
  private readonly waitObservers = new Set<(ms: number) => void>();
  private nextId = 0;
  private closed = false;
  /** A moving average of the threads' time per task, for the refusal's `Retry-After`. */
  private hashMs = FIRST_HASH_MS;
  readonly threads: number;
  readonly queueMax: number;
  private readonly tasksPerThread: number;
  private readonly maxHoldMs: number;

  constructor({ threads = usableCores(), queueMax, tasksPerThread = TASKS_PER_THREAD, maxHoldMs = MAX_HOLD_MS }: Argon2WorkersOptions = {}) {
    if (!Number.isInteger(threads) || threads < 1) throw new Error(`Argon2Workers need at least one thread, not ${threads}.`);
    if (!Number.isInteger(tasksPerThread) || tasksPerThread < 1) throw new Error(`A hashing thread takes at least one task, not ${tasksPerThread}.`);
    if (!(maxHoldMs >= 0)) throw new Error(`An answer cannot be held for ${maxHoldMs} ms.`);
    const max = queueMax ?? QUEUE_PER_THREAD * threads;
    if (!(max >= 0)) throw new Error(`The hashing queue bound is 0 or more, not ${max}.`);
    this.threads = threads;
    this.queueMax = max;
    this.tasksPerThread = tasksPerThread;
    this.maxHoldMs = maxHoldMs;
  }

  /** `client`: whose task it is, for the turns and the refusal (an opaque key; none is one more client). */
  hash(password: string, options: Argon2Options, client?: string): Promise<string> {
    return this.submit({ operation: 'hash', password, options }, client) as Promise<string>;
  }

  /** False for a wrong password; rejects for a hash the library cannot read. `client` as for `hash`. */
  verify(storedHash: string, password: string, client?: string): Promise<boolean> {
    return this.submit({ operation: 'verify', password, storedHash }, client) as Promise<boolean>;
  }

  /** Stops every thread; tasks still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('The hashing threads were stopped.');
    const queued = [...this.lines.values()].flat();
    this.lines.clear();
    this.waiting = 0;
    this.shares.clear();
    for (const pending of [...[...this.sent.values()].flatMap((tasks) => [...tasks.values()]), ...queued]) pending.reject(stopped);
    const workers = [...this.sent.keys()];
    this.sent.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** Tasks handed to a thread and tasks waiting for one, for tests and metrics. */
  get load(): { readonly active: number; readonly waiting: number } {
    let active = 0;
    for (const tasks of this.sent.values()) active += tasks.size;
    return { active, waiting: this.waiting };
  }

  /** Tasks waiting for a thread (not yet handed to one), for metrics. */
  get queueDepth(): number {
    return this.waiting;
  }

  /** The tasks of `client` waiting or held by a thread, for tests. */
  shareOf(client: string): number {
    return this.shares.get(client) ?? 0;
  }

  /**
   * Calls `observer` with each task's time in this queue, from submission to hand-off to a thread,
   * in ms (a thread may still hold it behind the others it was handed). Returns the way to stop.
   */
  onWait(observer: (ms: number) => void): () => void {
    this.waitObservers.add(observer);
    return () => this.waitObservers.delete(observer);
  }

  /** How long every task now queued or held takes to drain at the measured rate, in whole seconds, at least 1. */
  retryAfterSeconds(): number {
    const { active, waiting } = this.load;
    return Math.max(1, Math.ceil(((active + waiting) * this.hashMs) / this.threads / 1000));
  }

  private submit(task: Task, client = ANONYMOUS_CLIENT): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('The hashing threads were stopped.'));
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        task,
        client,
        queuedAt: performance.now(),
        resolve: (result) => (this.settled(client), resolve(result)),
        reject: (error) => (this.settled(client), reject(error)),
      };
      this.shares.set(client, this.shareOf(client) + 1);
      this.enqueue(pending);
      this.dispatch();
      if (this.waiting > this.queueMax) this.refuseLargestShare(client);
    });
  }

  /** At the end of its client's line; a client that had none joins the turns last. */
  private enqueue(pending: Pending): void {
    const line = this.lines.get(pending.client);
    if (line === undefined) this.lines.set(pending.client, [pending]);
    else line.push(pending);
    this.waiting += 1;
  }

  /** The next task in turn: the front of the first line, whose client then goes last. */
  private nextInTurn(): Pending | undefined {
    const first = this.lines.entries().next();
    if (first.done) return undefined;
    const [client, line] = first.value;
    const pending = line.shift() as Pending;
    this.lines.delete(client);
    if (line.length > 0) this.lines.set(client, line);
    this.waiting -= 1;
    return pending;
  }

  /**
   * The queue is over its bound by one: the newest waiting task of the client holding the most is
   * refused, never run. The submitter, when it holds as many as anyone, is the one refused, so a
   * tie costs nobody else a place. Whoever holds the most is the one the refusal slows least in
   * proportion, and a flood from one client cannot push anybody else's task out.
   */
  private refuseLargestShare(submitter: string): void {
    let victim = submitter;
    let most = this.shareOf(submitter);
    for (const client of this.lines.keys()) {
      const share = this.shareOf(client);
      if (share > most) [victim, most] = [client, share];
    }
    const line = this.lines.get(victim) as Pending[];
    const refused = line.pop() as Pending;
    if (line.length === 0) this.lines.delete(victim);
    this.waiting -= 1;
    refused.reject(new HashingBusyError(this.retryAfterSeconds()));
  }

  private settled(client: string): void {
    const share = this.shareOf(client) - 1;
    if (share > 0) this.shares.set(client, share);
    else this.shares.delete(client);
  }

  private dispatch(): void {
    while (this.waiting > 0) {
      const worker = this.leastLoaded();
      if (worker === undefined) return;
      const pending = this.nextInTurn() as Pending;
      const tasks = this.sent.get(worker) as Map<number, Pending>;
      const id = this.nextId++;
      tasks.set(id, pending);
      if (tasks.size === 1) worker.ref();
      worker.postMessage({ id, client: pending.client, ...pending.task });
      this.observeWait(performance.now() - pending.queuedAt);
    }
  }

  private observeWait(ms: number): void {
    for (const observer of this.waitObservers) {
      try {
        observer(ms);
      } catch {
        // An observer's failure must not stop the hand-off of the tasks behind it.
      }
    }
  }

  /** An idle thread, else a new one while there are fewer than `threads`, else the least busy one with room. */
  private leastLoaded(): Worker | undefined {
    let best: Worker | undefined;
    let fewest = this.tasksPerThread;
    for (const [worker, tasks] of this.sent) {
      if (tasks.size < fewest) [best, fewest] = [worker, tasks.size];
    }
    if (fewest === 0) return best;
    return this.sent.size < this.threads ? this.startWorker() : best;
  }

  private startWorker(): Worker {
    const worker = new Worker(new URL('./argon2-worker.js', import.meta.url), {
      workerData: { nice: HASHING_NICE, repliesPerMessage: this.tasksPerThread, maxHoldMs: this.maxHoldMs },
      execArgv: [],
    });
    this.sent.set(worker, new Map());
    worker.on('message', (replies: Reply[]) => this.finished(worker, replies));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`The hashing thread stopped (exit code ${code}).`)));
    return worker;
  }

  /** The thread answers its tasks by id, in the order it hashed them (in turns by client). */
  private finished(worker: Worker, replies: readonly Reply[]): void {
    const tasks = this.sent.get(worker);
    if (tasks === undefined) return;
    const done = replies.map((reply) => {
      const pending = tasks.get(reply.id);
      tasks.delete(reply.id);
      return pending;
    });
    if (tasks.size === 0) worker.unref();
    for (const reply of replies) if (reply.ms !== undefined) this.hashMs += (reply.ms - this.hashMs) / 8;
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
    for (const pending of tasks.values()) pending.reject(error);
    this.dispatch();
  }
}

const sharedPools = new Map<string, Argon2Workers>();

/**
 * The process's pool for these settings: every hasher in the process shares the cores, so every
 * service of one configuration shares its threads and its queue bound. Settings left out take
 * their defaults, which are then the same pool.
 */
export function sharedArgon2Workers(options: Pick<Argon2WorkersOptions, 'threads' | 'queueMax'> = {}): Argon2Workers {
  const threads = options.threads ?? usableCores();
  const queueMax = options.queueMax ?? QUEUE_PER_THREAD * threads;
  const key = `${threads}/${queueMax}`;
  let pool = sharedPools.get(key);
  if (pool === undefined) {
    pool = new Argon2Workers({ threads, queueMax });
    sharedPools.set(key, pool);
  }
  return pool;
}
