import type { Redis } from 'ioredis';
import type { RedisConnection } from '../redis-connection.ts';
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

type HitCommand = (key: string, windowMs: number) => Promise<[number, number]>;

/**
 * Counters shared by every instance through one Redis. A slow Redis must not hold sign-ins up:
 * the connection's command client fails a hit within its command timeout, and at once while
 * Redis is away (the limiter then counts in this instance).
 */
export class RedisWindowStore implements WindowStore {
  private client: Redis | undefined;

  constructor(private readonly connection: RedisConnection) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    // The first hit waits (boundedly) for the first connection, so that the first requests
    // after a start are shared too; the CLI builds the same services and opens nothing.
    await this.connection.connected();
    if (!this.connection.up) throw new Error('Redis does not answer.');
    const [count, ttl] = await this.hitCommand()(REDIS_KEY_PREFIX + key, windowMs);
    return { count, resetInMs: ttl };
  }

  /** The connection's owner closes it. */
  async close(): Promise<void> {}

  private hitCommand(): HitCommand {
    const client = this.connection.commands();
    if (this.client !== client) {
      if (!('gatehouseHit' in client)) client.defineCommand('gatehouseHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
      this.client = client;
    }
    const command = (client as unknown as { gatehouseHit: HitCommand }).gatehouseHit;
    return command.bind(client);
  }
}
