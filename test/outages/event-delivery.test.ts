/**
 * Subscription events through a Redis that is slow to take a PUBLISH (docs/reference/persistence.md): the
 * publishing instance gives up on Redis after its command timeout and delivers the event to its
 * own subscribers; when Redis then carries the PUBLISH after all, the copy that comes back is
 * dropped, so a subscriber gets each event once. A private redis-server is paused with
 * `CLIENT PAUSE … WRITE` (which holds PUBLISH).
 */
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvents, type Events } from '../../src/graphql/events.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { freePort, waitUntil } from '../helpers/processes.ts';
import { privateRedis, type RedisServer } from '../helpers/redis-server.ts';

type Topics = { counted: number };

describe('an event whose PUBLISH Redis holds past the command timeout', () => {
  let redis: RedisServer | undefined;
  let events: Events<Topics> | undefined;
  let admin: Redis | undefined;

  afterEach(async () => {
    await events?.close();
    admin?.disconnect();
    await redis?.stop();
  });

  it('reaches this instance at once, and once: the copy Redis delivers later is dropped', async () => {
    redis = privateRedis(await freePort());
    await redis.start();
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }) });
    events = createEvents<Topics>({ redisUrl: redis.url, logger });
    await events.start();
    admin = new Redis(redis.url);
    const stream = events.subscribe('counted');
    const received: number[] = [];
    void (async () => {
      for await (const value of stream) received.push(value);
    })();

    await events.publish('counted', 1);
    await waitUntil(() => received.length === 1, { timeoutMs: 5_000, intervalMs: 10, what: 'the first event' });
    await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    await events.publish('counted', 2);
    // Delivered here while Redis still holds it.
    await waitUntil(() => received.length === 2, { timeoutMs: 5_000, intervalMs: 10, what: 'the second event, here' });
    expect(received).toEqual([1, 2]);
    await admin.call('CLIENT', 'UNPAUSE');
    await events.publish('counted', 3);
    await waitUntil(() => received.includes(3), { timeoutMs: 5_000, intervalMs: 10, what: 'the third event' });
    expect(received).toEqual([1, 2, 3]);
    expect(lines.filter((line) => /a Redis command \(subscription event\) failed/.test(line))).toHaveLength(1);
    await stream.return!();
  });
});
