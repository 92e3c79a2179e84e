import { describe, expect, it } from 'vitest';
import { ClientTurns } from './client-turns.ts';

/** Whether `promise` has settled by the time queued callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('ClientTurns', () => {
  it('lets a client run its first requests at once and holds the rest in order, each starting as one ends', async () => {
    const turns = new ClientTurns(2, 10);
    const [a, b, c, d] = [1, 2, 3, 4].map(() => turns.enter('flood')!);
    expect(await a!.ready).toBe(true);
    expect(await b!.ready).toBe(true);
    expect(await settled(c!.ready)).toBe(false);
    a!.leave();
    expect(await c!.ready).toBe(true);
    expect(await settled(d!.ready)).toBe(false);
    b!.leave();
    expect(await d!.ready).toBe(true);
  });

  it('keeps clients apart: one client held in line never delays another', async () => {
    const turns = new ClientTurns(1, 10);
    turns.enter('flood');
    const held = turns.enter('flood')!;
    expect(await settled(held.ready)).toBe(false);
    expect(await turns.enter('other')!.ready).toBe(true);
  });

  it('refuses a client whose line is full, and takes it again once there is room', async () => {
    const turns = new ClientTurns(1, 2);
    const running = turns.enter('flood')!;
    turns.enter('flood');
    turns.enter('flood');
    expect(turns.enter('flood')).toBeNull();
    running.leave();
    expect(turns.enter('flood')).not.toBeNull();
  });

  it('answers false to a request that leaves while waiting, which then holds no place, and counts each leave once', async () => {
    const turns = new ClientTurns(1, 10);
    const running = turns.enter('flood')!;
    const gone = turns.enter('flood')!;
    const next = turns.enter('flood')!;
    gone.leave();
    expect(await gone.ready).toBe(false);
    running.leave();
    running.leave();
    expect(await next.ready).toBe(true);
    // The second leave of `running` gave away no turn: one more request is held behind `next`.
    expect(await settled(turns.enter('flood')!.ready)).toBe(false);
  });

  it('forgets a client once nothing of it runs or waits', () => {
    const turns = new ClientTurns(1, 10);
    const running = turns.enter('flood')!;
    const waiting = turns.enter('flood')!;
    waiting.leave();
    running.leave();
    expect(turns.size).toBe(0);
  });
});
