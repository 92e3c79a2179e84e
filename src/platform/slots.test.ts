import { describe, expect, it } from 'vitest';
import { Slots } from './slots.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('Slots', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order', async () => {
    const slots = new Slots(2);
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    const runs = gates.map((gate, i) => slots.run(async () => { started.push(i); await gate.promise; return i; }));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.load).toEqual({ active: 2, waiting: 3 });
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(slots.load).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the slot of a task that fails', async () => {
    const slots = new Slots(1);
    await expect(slots.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await slots.run(async () => 'next')).toBe('next');
    expect(slots.load).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses a limit below one', () => {
    expect(() => new Slots(0)).toThrow();
  });
});
