import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { MemoryWindowStore } from './memory-window-store.ts';
import type { RedisConnection } from '../redis-connection.ts';
import { RedisWindowStore } from './redis-window-store.ts';
import type { WindowStore } from './window-store.ts';

/** The outcome of one counted request. */
export type RateLimitDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface RateLimiterOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Shares the counters across instances (Gatehouse's connection, whose state says when Redis is
   * away; the caller closes it); unset: per instance.
   */
  readonly redis?: RedisConnection | null | undefined;
  /** @default one minute, the unit of RATE_LIMIT_*_PER_MINUTE */
  readonly windowMs?: number;
}

const MINUTE_MS = 60_000;

/**
 * Fixed-window request counting (`limit` requests per window per key). With Redis, a failed
 * hit is counted in this instance's memory instead: requests go on, limited per instance, until
 * Redis answers again (docs/decisions/0017-rate-limits.md); the connection tells the log once.
 */
export class RateLimiter {
  private readonly local: MemoryWindowStore;
  private readonly shared: WindowStore | undefined;
  private readonly windowMs: number;
  private readonly connection: RedisConnection | undefined;

  constructor(options: RateLimiterOptions) {
    this.local = new MemoryWindowStore(options.clock);
    this.connection = options.redis ?? undefined;
    this.shared = this.connection ? new RedisWindowStore(this.connection) : undefined;
    this.windowMs = options.windowMs ?? MINUTE_MS;
  }

  /** Counts one request under `key`; refused once more than `limit` arrived in the window. */
  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    const { count, resetInMs } = await this.hit(key);
    if (count <= limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)) };
  }

  async close(): Promise<void> {
    await Promise.all([this.local.close(), this.shared?.close()]);
  }

  private async hit(key: string) {
    if (!this.shared) return this.local.hit(key, this.windowMs);
    try {
      return await this.shared.hit(key, this.windowMs);
    } catch (error) {
      this.connection?.commandFailed('rate-limit hit', error);
      return this.local.hit(key, this.windowMs);
    }
  }
}
