/**
 * The hashing queue is full: the password was not hashed nor checked, nothing was counted or
 * written, and the same request can be made again after `retryAfterSeconds`. Waiting in a queue
 * already seconds long would only add to it: a client that gives up and retries meanwhile hashes
 * twice, and each queued sign-in holds its connection and request (decision 0054).
 */
export class HashingBusyError extends Error {
  constructor(
    /** How long the queue now takes to drain, in whole seconds, at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super('Too many passwords are waiting to be hashed.');
    this.name = 'HashingBusyError';
  }
}
