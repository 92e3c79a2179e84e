/**
 * Open sockets per key — a user, a client address — on this instance, each key up to `limit`.
 * A key whose last socket closed is forgotten, so the map holds only keys with open sockets.
 */
export class SocketCounts {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Counts one more socket of `key`, and answers how to let go of it (once); null when `key` has `limit` already. */
  admit(key: string): (() => void) | null {
    const count = this.counts.get(key) ?? 0;
    if (count >= this.limit) return null;
    this.counts.set(key, count + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left === 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }
}
