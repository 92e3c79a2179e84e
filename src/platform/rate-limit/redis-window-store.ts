import type { Redis } from 'ioredis';
import { createRedis } from '../redis.ts';
import type { Logger } from 'pino';
import type { WindowCount, WindowStore } from './window-store.ts';

/** Every key this service writes for rate limits starts with this. */
export const REDIS_KEY_PREFIX = 'gatehouse:rl:';

/**
 * INCR and the window's expiry in one atomic step: the first hit opens the window; a key left
 * without an expiry (it cannot happen through this script, but costs nothing to mend) gets one.
 * Redis's own clock times the window, so instances with skewed clocks still agree.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

/** A slow Redis must not hold sign-ins up; past this the hit fails (and the limiter falls back). */
const COMMAND_TIMEOUT_MS = 500;

/** Counters shared by every instance through one Redis. */
export class RedisWindowStore implements WindowStore {
  private readonly redis: Redis;
  private connectedOnce = false;

  constructor(redisUrl: string, logger: Logger) {
    // Connects at the first hit: the CLI builds the same services and must not hold a connection open.
    this.redis = createRedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
    this.redis.on('ready', () => (this.connectedOnce = true));
    this.redis.on('error', (error: unknown) => logger.warn({ err: error }, 'Redis connection problem (rate limits)'));
    this.redis.defineCommand('gatehouseHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    // Hits wait (at most COMMAND_TIMEOUT_MS) for the first connection, so that the first
    // requests after a start are shared too; once a working connection is lost they fail at
    // once, and the limiter counts locally until Redis is back.
    if (this.connectedOnce && this.redis.status !== 'ready') throw new Error(`Redis is ${this.redis.status}.`);
    const hit = (this.redis as unknown as { gatehouseHit(key: string, windowMs: number): Promise<[number, number]> }).gatehouseHit;
    const [count, ttl] = await hit.call(this.redis, REDIS_KEY_PREFIX + key, windowMs);
    return { count, resetInMs: ttl };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
