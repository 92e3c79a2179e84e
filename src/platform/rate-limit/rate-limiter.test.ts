import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisAvailable } from '../../../test/helpers/databases.ts';
import { ManualClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import { MemoryWindowStore } from './memory-window-store.ts';
import { RedisConnection } from '../redis-connection.ts';
import { RateLimiter } from './rate-limiter.ts';
import { REDIS_KEY_PREFIX, RedisWindowStore } from './redis-window-store.ts';

const redisUp = await redisAvailable();
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('MemoryWindowStore', () => {
  it('counts hits in a window that opens at the first hit and tells how long it has left', async () => {
    const clock = new ManualClock();
    const store = new MemoryWindowStore(clock);
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
    clock.advance(10_000);
    expect(await store.hit('a', 60_000)).toEqual({ count: 2, resetInMs: 50_000 });
    expect(await store.hit('b', 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
    clock.advance(50_000);
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
  });

  it('drops expired windows as time passes, and the oldest when it holds its maximum of keys', async () => {
    const clock = new ManualClock();
    const store = new MemoryWindowStore(clock, 3);
    for (const key of ['a', 'b', 'c']) {
      await store.hit(key, 60_000);
      clock.advance(1_000);
    }
    await store.hit('d', 60_000);
    expect(store.size).toBe(3);
    // 'a' went to make room: it starts again from 1.
    expect((await store.hit('a', 60_000)).count).toBe(1);
    clock.advance(60_000);
    await store.hit('e', 60_000);
    expect(store.size).toBe(1);
  });
});

describe('RateLimiter', () => {
  it('allows `limit` requests a window and then refuses with the seconds left, rounded up', async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ clock, logger: capturedLogger().logger });
    for (let i = 0; i < 2; i++) expect(await limiter.consume('k', 2)).toEqual({ allowed: true });
    clock.advance(58_500);
    expect(await limiter.consume('k', 2)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    clock.advance(1_500);
    expect(await limiter.consume('k', 2)).toEqual({ allowed: true });
  });

  it('counts in this instance, and says so once, while Redis cannot be reached (no request fails)', async () => {
    const { lines, logger } = capturedLogger();
    // Port 1: nothing listens there.
    const clock = new ManualClock();
    const redis = new RedisConnection({ url: 'redis://127.0.0.1:1', logger, clock });
    const limiter = new RateLimiter({ clock, logger, redis });
    try {
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await limiter.consume('k', 2));
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
      expect(lines.filter((line) => line.includes('Redis does not answer'))).toHaveLength(1);
    } finally {
      await limiter.close();
      await redis.close();
    }
  });
});

describe.runIf(redisUp)('RedisWindowStore', () => {
  it('counts every one of many concurrent hits once, under a prefixed key that expires with the window', async () => {
    const connection = new RedisConnection({ url: REDIS_URL, logger: capturedLogger().logger });
    const store = new RedisWindowStore(connection);
    const redis = new Redis(REDIS_URL);
    const key = `test:${randomBytes(8).toString('hex')}`;
    try {
      const hits = await Promise.all(Array.from({ length: 50 }, () => store.hit(key, 60_000)));
      expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      for (const hit of hits) expect(hit.resetInMs).toBeGreaterThan(50_000);
      expect(await redis.get(`${REDIS_KEY_PREFIX}${key}`)).toBe('50');
      const ttl = await redis.pttl(`${REDIS_KEY_PREFIX}${key}`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await redis.del(`${REDIS_KEY_PREFIX}${key}`);
      redis.disconnect();
      await connection.close();
    }
  });

  it('opens a new window once the old one has expired', async () => {
    const connection = new RedisConnection({ url: REDIS_URL, logger: capturedLogger().logger });
    const store = new RedisWindowStore(connection);
    const key = `test:${randomBytes(8).toString('hex')}`;
    try {
      await store.hit(key, 50);
      await store.hit(key, 50);
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect((await store.hit(key, 50)).count).toBe(1);
    } finally {
      await connection.close();
    }
  });
});
