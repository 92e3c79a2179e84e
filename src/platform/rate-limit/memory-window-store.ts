import type { Clock } from '../clock.ts';
import type { WindowCount, WindowStore } from './window-store.ts';

interface Window {
  count: number;
  endsAt: number;
}

/** Enough keys for a busy instance; past it the oldest windows go first. */
const DEFAULT_MAX_KEYS = 100_000;

/**
 * Per-instance counters in a Map kept in the order windows opened (a re-opened window moves to
 * the end). With one window length, the front holds the oldest windows, so expired ones are
 * dropped from the front on each hit at constant amortised cost, and memory stays bounded.
 */
export class MemoryWindowStore implements WindowStore {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly maxKeys = DEFAULT_MAX_KEYS,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.clock.now();
    this.dropExpired(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.dropOldest();
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, resetInMs: window.endsAt - now };
  }

  /** Keys held now, for tests. */
  get size(): number {
    return this.windows.size;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private dropExpired(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(key);
    }
  }

  private dropOldest(): void {
    const oldest = this.windows.keys().next();
    if (!oldest.done) this.windows.delete(oldest.value);
  }
}
