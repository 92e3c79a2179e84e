/**
 * A subscription source that can also hand each event to a function the moment it happens,
 * instead of through `next()`: no queue and no promise per event and subscriber, which is most of
 * a delivery's cost when one event goes to a thousand subscribers.
 */
export interface PushableStream<T> extends AsyncIterableIterator<T> {
  /** From now on every event goes to `listener`, not to `next()`; `return()` ends both. */
  push(listener: (event: T) => void): void;
}

export function isPushable<T>(stream: AsyncIterator<T>): stream is PushableStream<T> {
  return typeof (stream as Partial<PushableStream<T>>).push === 'function';
}

/**
 * The events `subscribe` announces, as a pushable stream: until `push` is called they queue for
 * `next()`; `return()` unsubscribes.
 */
export function eventStream<T>(subscribe: (listener: (event: T) => void) => () => void): PushableStream<T> {
  const queue: T[] = [];
  let wake: (() => void) | null = null;
  let pushTo: ((event: T) => void) | null = null;
  let done = false;
  const stop = subscribe((event) => {
    if (pushTo !== null) return pushTo(event);
    queue.push(event);
    wake?.();
  });
  const finish = (): IteratorReturnResult<undefined> => {
    done = true;
    stop();
    wake?.();
    return { done: true, value: undefined };
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<T>> {
      while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      if (queue.length === 0) return finish();
      return { done: false, value: queue.shift()! };
    },
    async return() {
      return finish();
    },
    push(listener) {
      pushTo = listener;
      for (const event of queue.splice(0)) listener(event);
    },
  };
}
