import type { ExecutionResult } from 'graphql';
import type { LiveCount } from '../platform/metrics/live-count.ts';

/*
 * Subscription sources, and the iterators graphql-ws consumes them through: mapped to results
 * one by one, or delivered by the caller (GraphQLService.subscribeArgs) with nothing yielded.
 */

/**
 * A subscription source that can also hand each event to a function the moment it happens,
 * instead of through `next()`: no queue and no promise per event and subscriber, which is most of
 * a delivery's cost when one event goes to a thousand subscribers.
 */
export interface PushableStream<T> extends AsyncIterableIterator<T> {
  /** From now on every event goes to `listener`, not to `next()`; `return()` ends both. */
  push(listener: (event: T) => void): void;
}

function isPushable<T>(stream: AsyncIterator<T>): stream is PushableStream<T> {
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

/**
 * Hands each of the source's events to `deliver`, one after the other, as an iterator that yields
 * nothing: it ends when the source does (or fails as it fails), and returning it ends the source
 * (the subscriber left).
 */
export function deliverEvents(source: AsyncIterator<unknown>, deliver: (event: unknown) => Promise<void> | void): AsyncIterableIterator<ExecutionResult> {
  if (isPushable(source)) return pushEvents(source, deliver);
  let stopped = false;
  const finished = (async () => {
    for (;;) {
      const step = await source.next();
      if (step.done || stopped) return;
      const delivering = deliver(step.value);
      if (delivering !== undefined) await delivering;
    }
  })();
  // Settled here too, so that a failure after the subscriber left is not an unhandled rejection.
  finished.catch(() => undefined);
  const end = async (): Promise<IteratorReturnResult<undefined>> => {
    stopped = true;
    await source.return?.();
    return { done: true, value: undefined };
  };
  return deliveryIterator(finished, end);
}

/**
 * `deliverEvents` for a source that pushes: each event is delivered as it happens, synchronously
 * when its result is ready; a delivery that has to wait holds the later ones back, so the order
 * stays the source's.
 */
function pushEvents(source: PushableStream<unknown>, deliver: (event: unknown) => Promise<void> | void): AsyncIterableIterator<ExecutionResult> {
  let waiting: Promise<void> | undefined;
  let end!: (failure?: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => (end = (failure) => (failure === undefined ? resolve() : reject(failure))));
  finished.catch(() => undefined);
  const settle = (delivering: Promise<void>) => {
    waiting = delivering;
    delivering.then(
      () => void (waiting === delivering && (waiting = undefined)),
      (failure: unknown) => end(failure ?? new Error('A subscription event could not be delivered.')),
    );
  };
  source.push((event) => {
    if (waiting !== undefined) return settle(waiting.then(() => deliver(event)));
    const delivering = deliver(event);
    if (delivering !== undefined) settle(delivering);
  });
  const stop = async (): Promise<IteratorReturnResult<undefined>> => {
    await source.return?.();
    end();
    return { done: true, value: undefined };
  };
  return deliveryIterator(finished, stop);
}

/**
 * What graphql-js gets back from a delivering subscription: `next` settles once delivery has
 * finished (with its failure, if any) and yields nothing, since every result was delivered on
 * the way; `return` and `throw` stop the delivery.
 */
function deliveryIterator(
  finished: Promise<void>,
  stop: () => Promise<IteratorReturnResult<undefined>>,
): AsyncIterableIterator<ExecutionResult> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      await finished;
      return { done: true, value: undefined };
    },
    return: stop,
    async throw(error: unknown) {
      await stop();
      throw error;
    },
  };
}

/** The source's events mapped through `map`; returning ends the source too (the subscriber left). */
export function mapEvents(
  source: AsyncIterator<unknown>,
  map: (event: unknown) => Promise<ExecutionResult> | ExecutionResult,
): AsyncIterableIterator<ExecutionResult> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      const step = await source.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: await map(step.value) };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await source.return?.();
      throw error;
    },
  };
}

/**
 * `stream`, told to `live` as opened now and as closed once, when it ends, fails or is returned
 * (graphql-ws returns it when the subscriber completes or its socket closes).
 */
export function countedWhileOpen<T>(stream: AsyncIterableIterator<T>, live: LiveCount): AsyncIterableIterator<T> {
  live.opened();
  let open = true;
  const close = () => {
    if (open) live.closed();
    open = false;
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const step = await stream.next();
        if (step.done) close();
        return step;
      } catch (error) {
        close();
        throw error;
      }
    },
    async return(value?: unknown) {
      close();
      return stream.return ? stream.return(value) : { done: true, value: value as T };
    },
    async throw(error?: unknown) {
      close();
      if (stream.throw) return stream.throw(error);
      throw error;
    },
  };
}
