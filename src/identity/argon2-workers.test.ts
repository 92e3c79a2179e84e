import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Argon2Workers } from './argon2-workers.ts';

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
    const workers = new Argon2Workers(1);
    onTestFinished(() => workers.close());
    const stored = await workers.hash('correct horse', OPTIONS);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await workers.verify(stored, 'correct horse')).toBe(true);
    expect(await workers.verify(stored, 'wrong horse')).toBe(false);
  });

  it('runs at most one task per thread, the rest in arrival order, and rejects only the task that fails', async () => {
    const workers = new Argon2Workers(2);
    onTestFinished(() => workers.close());
    const stored = await workers.hash('pw', OPTIONS);
    const tasks = [
      workers.verify(stored, 'pw'),
      workers.verify('not a hash at all', 'pw'),
      workers.verify(stored, 'nope'),
      workers.hash('another', OPTIONS),
      workers.verify(stored, 'pw'),
    ];
    expect(workers.load).toEqual({ active: 2, waiting: 3 });
    const outcomes = await Promise.allSettled(tasks);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'error'))).toEqual([
      true,
      'error',
      false,
      expect.stringMatching(/^\$argon2id\$/),
      true,
    ]);
    expect(workers.load).toEqual({ active: 0, waiting: 0 });
  });

  it.runIf(process.platform === 'linux')('hashes on threads at nice 19, leaving the rest of the process as it was', async () => {
    const before = threadNiceValues();
    expect(before.every((nice) => nice === before[0])).toBe(true);
    const workers = new Argon2Workers(2);
    onTestFinished(() => workers.close());
    const stored = await workers.hash('pw', OPTIONS);
    await Promise.all([workers.verify(stored, 'pw'), workers.verify(stored, 'pw')]);
    const after = threadNiceValues();
    expect(after.filter((nice) => nice === 19)).toHaveLength(2);
    expect(after.filter((nice) => nice !== 19).every((nice) => nice === before[0])).toBe(true);
  });

  it('rejects queued and new tasks once closed', async () => {
    const workers = new Argon2Workers(1);
    const outcomes = Promise.allSettled([workers.hash('running', OPTIONS), workers.hash('queued', OPTIONS)]);
    await workers.close();
    for (const outcome of await outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/stopped/);
    }
    await expect(workers.hash('three', OPTIONS)).rejects.toThrow(/stopped/);
  });
});
