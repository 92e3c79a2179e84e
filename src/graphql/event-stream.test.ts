import { describe, expect, it } from 'vitest';
import { deliverEvents, eventStream } from './event-stream.ts';

/** A tiny publisher: what `PostEvents` is to the posts' stream. */
function publisher<T>() {
  const listeners = new Set<(event: T) => void>();
  return {
    publish: (event: T) => listeners.forEach((listener) => listener(event)),
    subscribe: (listener: (event: T) => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get listening() {
      return listeners.size;
    },
  };
}

describe('eventStream', () => {
  it('queues events for next() until something pushes, then hands over the queue in order', async () => {
    const events = publisher<number>();
    const stream = eventStream(events.subscribe);
    events.publish(1);
    expect(await stream.next()).toEqual({ done: false, value: 1 });
    events.publish(2);
    events.publish(3);
    const pushed: number[] = [];
    stream.push((event) => pushed.push(event));
    events.publish(4);
    expect(pushed).toEqual([2, 3, 4]);
    await stream.return!();
    expect(events.listening).toBe(0);
  });
});

describe('deliverEvents over a pushable stream', () => {
  it('keeps the order when a delivery has to wait, and unsubscribes on return', async () => {
    const events = publisher<string>();
    const delivered: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const iterator = deliverEvents(eventStream(events.subscribe), (event) => {
      if (event === 'first') return slow.then(() => void delivered.push(event));
      delivered.push(event as string);
    });
    events.publish('first');
    events.publish('second');
    events.publish('third');
    expect(delivered).toEqual([]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toEqual(['first', 'second', 'third']);
    events.publish('fourth'); // nothing waits now: delivered at once
    expect(delivered).toEqual(['first', 'second', 'third', 'fourth']);
    const ended = iterator.next();
    await iterator.return!();
    expect(await ended).toEqual({ done: true, value: undefined });
    expect(events.listening).toBe(0);
  });

  it('ends the iterator with the failure of a delivery', async () => {
    const events = publisher<string>();
    const iterator = deliverEvents(eventStream(events.subscribe), () => Promise.reject(new Error('socket gone')));
    const ended = iterator.next();
    events.publish('x');
    await expect(ended).rejects.toThrow('socket gone');
  });
});
