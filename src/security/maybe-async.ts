/**
 * A value now, or later. The request pipeline's common case — a remembered token, handlers
 * that decide on the spot — completes without a single promise; only real I/O makes it wait.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | null)?.then === 'function';
}

/**
 * `next(value)` at once when `value` is ready, after it settles otherwise. (Not named `then`: a
 * module exporting `then` makes its namespace object a thenable.)
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (settled: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(next) : next(value);
}
