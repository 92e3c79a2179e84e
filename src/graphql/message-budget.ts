/**
 * The messages one socket may still send: `burst` at once, then `perSecond` (a token bucket). A
 * client that starts, ends and restarts its subscriptions stays well inside it; a flood of
 * `subscribe`, `complete` or `ping` messages runs out of it within a second.
 */
export class MessageBudget {
  private tokens: number;
  private last: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    /** Monotonic milliseconds: a change of the wall clock neither refills nor drains the bucket. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Spends one message; false when none is left. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
