import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Argon2Workers, sharedArgon2Workers } from './argon2-workers.ts';
import { HashingBusyError } from './hashing-busy.ts';

/** Cheap parameters: these tests are about the threads, not the hash's cost. */
const OPTIONS = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** The nice value of every thread of this process, from /proc (field 19 of each task's stat). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((task) => {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    // The command name may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  });
}

describe('Argon2Workers', () => {
  it('hashes with Argon2id and verifies the right password only', async () => {
    const workers = new Argon2Workers({ threads: 1 });
    onTestFinished(() => workers.close());
    const stored = await workers.hash('correct horse', OPTIONS);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await workers.verify(stored, 'correct horse')).toBe(true);
    expect(await workers.verify(stored, 'wrong horse')).toBe(false);
  });

  it('hands each thread up to its share of tasks, queues the rest, and rejects only the task that fails', async () => {
    const workers = new Argon2Workers({ threads: 2, tasksPerThread: 3 });
    onTestFinished(() => workers.close());
    const stored = await workers.hash('pw', OPTIONS);
    const tasks = [
      workers.verify(stored, 'pw'),
      workers.verify('not a hash at all', 'pw'),
      workers.verify(stored, 'nope'),
      workers.hash('another', OPTIONS),
      workers.verify(stored, 'pw'),
      workers.verify(stored, 'nope'),
      workers.verify(stored, 'pw'),
      workers.verify('$argon2id$broken', 'pw'),
    ];
    expect(workers.load).toEqual({ active: 6, waiting: 2 });
    const outcomes = await Promise.allSettled(tasks);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'error'))).toEqual([
      true,
      'error',
      false,
      expect.stringMatching(/^\$argon2id\$/),
      true,
      false,
      true,
      'error',
    ]);
    expect(workers.load).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses a task at once beyond its queue bound, without queueing it, and takes tasks again once the queue drains', async () => {
    const workers = new Argon2Workers({ threads: 1, tasksPerThread: 2, queueMax: 2 });
    onTestFinished(() => workers.close());
    const waits: number[] = [];
    workers.onWait((ms) => waits.push(ms));
    // Submitted in one turn of the event loop: no answer can arrive in between.
    const accepted = Array.from({ length: 4 }, (_, at) => workers.hash(`pw ${at}`, OPTIONS));
    expect(workers.load).toEqual({ active: 2, waiting: 2 });
    expect(workers.queueDepth).toBe(2);
    const refused = workers.hash('one too many', OPTIONS);
    expect(workers.load).toEqual({ active: 2, waiting: 2 });
    const error = await refused.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(HashingBusyError);
    expect(Number.isInteger((error as HashingBusyError).retryAfterSeconds)).toBe(true);
    expect((error as HashingBusyError).retryAfterSeconds).toBeGreaterThanOrEqual(1);

    expect(await Promise.all(accepted)).toEqual(Array.from({ length: 4 }, () => expect.stringMatching(/^\$argon2id\$/)));
    // Every accepted task was handed to the thread once; the refused one never was.
    expect(waits).toHaveLength(4);
    expect(waits.every((ms) => ms >= 0)).toBe(true);
    expect(workers.queueDepth).toBe(0);
    await expect(workers.hash('after the burst', OPTIONS)).resolves.toMatch(/^\$argon2id\$/);
  });

  it('with no room to wait, takes what its threads hold and refuses the next', async () => {
    const workers = new Argon2Workers({ threads: 1, tasksPerThread: 1, queueMax: 0 });
    onTestFinished(() => workers.close());
    const held = workers.hash('held', OPTIONS);
    await expect(workers.hash('refused', OPTIONS)).rejects.toBeInstanceOf(HashingBusyError);
    await expect(held).resolves.toMatch(/^\$argon2id\$/);
  });

  it('hands waiting tasks to the threads in turns between clients, not in arrival order', async () => {
    const workers = new Argon2Workers({ threads: 1, tasksPerThread: 1, queueMax: 10 });
    onTestFinished(() => workers.close());
    const finished: string[] = [];
    const submit = (client: string, at: number) => workers.hash(`${client} ${at}`, OPTIONS, client).then(() => finished.push(`${client}${at}`));
    const tasks = [1, 2, 3, 4, 5].map((at) => submit('flood', at));
    tasks.push(submit('other', 1));
    expect(workers.shareOf('flood')).toBe(5);
    await Promise.all(tasks);
    // The first was held by the thread and the second had the first turn; the other client's one came next.
    expect(finished).toEqual(['flood1', 'flood2', 'other1', 'flood3', 'flood4', 'flood5']);
    expect(workers.shareOf('flood')).toBe(0);
  });

  it('hashes the tasks a thread holds in turns between clients too, answering each by its id', async () => {
    const workers = new Argon2Workers({ threads: 1, tasksPerThread: 8, queueMax: 0 });
    onTestFinished(() => workers.close());
    const finished: string[] = [];
    const submit = (client: string, at: number) => workers.hash(`${client} ${at}`, OPTIONS, client).then((hash) => (finished.push(`${client}${at}`), hash));
    // All sent to the one thread before it starts: the other client's one is hashed second, not seventh.
    const tasks = [...[1, 2, 3, 4, 5, 6].map((at) => submit('flood', at)), submit('other', 1)];
    expect(workers.load).toEqual({ active: 7, waiting: 0 });
    const hashes = await Promise.all(tasks);
    expect(finished).toEqual(['flood1', 'other1', 'flood2', 'flood3', 'flood4', 'flood5', 'flood6']);
    // Each caller got its own task's answer.
    const own = await Promise.all(hashes.map((hash, at) => workers.verify(hash, at === 6 ? 'other 1' : `flood ${at + 1}`)));
    expect(own).toEqual(hashes.map(() => true));
  });

  it('over its bound, refuses the newest waiting task of the client holding the most, never a newcomer holding fewer', async () => {
    const workers = new Argon2Workers({ threads: 1, tasksPerThread: 1, queueMax: 3 });
    onTestFinished(() => workers.close());
    const outcome = (task: Promise<string>) => task.then(() => 'hashed', (error: unknown) => (error instanceof HashingBusyError ? 'refused' : 'failed'));
    // One held by the thread, three waiting: the queue is full, all of them the flood's.
    const flood = [1, 2, 3, 4].map((at) => outcome(workers.hash(`flood ${at}`, OPTIONS, 'flood')));
    const other = outcome(workers.hash('other 1', OPTIONS, 'other'));
    expect(workers.load).toEqual({ active: 1, waiting: 3 });
    expect(workers.shareOf('flood')).toBe(3);
    // The flood holding the most, its own new task is refused at once.
    const floodAgain = outcome(workers.hash('flood 5', OPTIONS, 'flood'));
    // The held task counts toward the share: the flood (3) still holds more than `other` (2), then `third` (1).
    const otherAgain = outcome(workers.hash('other 2', OPTIONS, 'other'));
    const third = outcome(workers.hash('third 1', OPTIONS, 'third'));
    expect(workers.shareOf('flood')).toBe(1);
    // `third` now holds as many as `other`: the submitter is refused, nobody else loses a place.
    const thirdAgain = outcome(workers.hash('third 2', OPTIONS, 'third'));
    expect(await Promise.all([...flood, other, floodAgain, otherAgain, third, thirdAgain])).toEqual([
      'hashed',
      'refused',
      'refused',
      'refused',
      'hashed',
      'refused',
      'hashed',
      'hashed',
      'refused',
    ]);
    expect(workers.load).toEqual({ active: 0, waiting: 0 });
  });

  it('stops telling an observer that stopped listening, and a failing observer does not stop the hand-off', async () => {
    const workers = new Argon2Workers({ threads: 1 });
    onTestFinished(() => workers.close());
    const seen: number[] = [];
    const stop = workers.onWait((ms) => seen.push(ms));
    workers.onWait(() => {
      throw new Error('a broken metric');
    });
    await workers.hash('one', OPTIONS);
    stop();
    await workers.hash('two', OPTIONS);
    expect(seen).toHaveLength(1);
  });

  it('shares one pool per configuration in the process, the queue bound 32 tasks per thread by default', () => {
    expect(sharedArgon2Workers({ threads: 3 })).toBe(sharedArgon2Workers({ threads: 3, queueMax: 96 }));
    expect(sharedArgon2Workers({ threads: 3 }).queueMax).toBe(96);
    expect(sharedArgon2Workers({ threads: 3, queueMax: 5 })).not.toBe(sharedArgon2Workers({ threads: 3 }));
  });

  it('refuses a pool without threads, a thread without tasks or a negative hold', () => {
    expect(() => new Argon2Workers({ threads: 0 })).toThrow(/at least one thread/);
    expect(() => new Argon2Workers({ threads: 1, tasksPerThread: 0 })).toThrow(/at least one task/);
    expect(() => new Argon2Workers({ threads: 1, maxHoldMs: -1 })).toThrow(/cannot be held/);
    expect(() => new Argon2Workers({ threads: 1, queueMax: -1 })).toThrow(/queue bound is 0 or more/);
  });

  it.runIf(process.platform === 'linux')('hashes on threads at nice 5, leaving the rest of the process as it was', async () => {
    const before = threadNiceValues();
    expect(before.every((nice) => nice === before[0])).toBe(true);
    const workers = new Argon2Workers({ threads: 2 });
    onTestFinished(() => workers.close());
    const stored = await workers.hash('pw', OPTIONS);
    await Promise.all([workers.verify(stored, 'pw'), workers.verify(stored, 'pw')]);
    const after = threadNiceValues();
    expect(after.filter((nice) => nice === 5)).toHaveLength(2);
    expect(after.filter((nice) => nice !== 5).every((nice) => nice === before[0])).toBe(true);
  });

  it('answers tasks that queued behind one another in one message, up to the thread\'s share, in order', async () => {
    const worker = new Worker(new URL('./argon2-worker.js', import.meta.url), { workerData: { nice: 0, repliesPerMessage: 2, maxHoldMs: 60_000 } });
    onTestFinished(async () => {
      await worker.terminate();
    });
    const messages: { id: number; result?: unknown }[][] = [];
    const answered = new Promise<void>((resolve) => {
      worker.on('message', (replies: { id: number; result?: unknown }[]) => {
        messages.push(replies);
        if (messages.flat().length === 5) resolve();
      });
    });
    // Posted before the thread has even started: all five wait in its port when it takes the first.
    for (let id = 0; id < 5; id++) worker.postMessage({ id, operation: 'hash', password: `pw ${id}`, options: OPTIONS });
    await answered;
    expect(messages.map((replies) => replies.map((reply) => reply.id))).toEqual([[0, 1], [2, 3], [4]]);
    expect(messages.flat().every((reply) => String(reply.result).startsWith('$argon2id$'))).toBe(true);

    // A task alone is answered as soon as it is done.
    const lone = new Promise((resolve) => worker.once('message', resolve));
    worker.postMessage({ id: 5, operation: 'hash', password: 'alone', options: OPTIONS });
    expect(await lone).toEqual([{ id: 5, result: expect.stringMatching(/^\$argon2id\$/), ms: expect.any(Number) }]);
  });

  it('holds no answer longer than its time allows, however many tasks wait', async () => {
    // A hash takes more than 0 ms, so with no time to hold, each answer goes out alone.
    const worker = new Worker(new URL('./argon2-worker.js', import.meta.url), { workerData: { nice: 0, repliesPerMessage: 8, maxHoldMs: 0 } });
    onTestFinished(async () => {
      await worker.terminate();
    });
    const messages: { id: number }[][] = [];
    const answered = new Promise<void>((resolve) => {
      worker.on('message', (replies: { id: number }[]) => {
        messages.push(replies);
        if (messages.flat().length === 4) resolve();
      });
    });
    for (let id = 0; id < 4; id++) worker.postMessage({ id, operation: 'hash', password: `pw ${id}`, options: OPTIONS });
    await answered;
    expect(messages.map((replies) => replies.map((reply) => reply.id))).toEqual([[0], [1], [2], [3]]);
  });

  it('rejects queued and new tasks once closed', async () => {
    const workers = new Argon2Workers({ threads: 1 });
    const outcomes = Promise.allSettled([workers.hash('running', OPTIONS), workers.hash('queued', OPTIONS)]);
    await workers.close();
    for (const outcome of await outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/stopped/);
    }
    await expect(workers.hash('three', OPTIONS)).rejects.toThrow(/stopped/);
  });
});
