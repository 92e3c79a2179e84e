import type { Redis, RedisOptions } from 'ioredis';
import { requirePeer } from './optional-peers.ts';

/**
 * A Redis client. ioredis (an optional peer) is loaded with the first client, not with the module
 * that may make one: a service without REDIS_URL never loads it (several megabytes of memory).
 */
export function createRedis(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = requirePeer<typeof import('ioredis')>('ioredis', 'A Redis URL (REDIS_URL)');
  return new Client(url, options);
}
