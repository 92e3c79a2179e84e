import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

const require = createRequire(import.meta.url);

/**
 * A Redis client. ioredis is loaded with the first client, not with the module that may make
 * one: a service without REDIS_URL never loads it (several megabytes of memory).
 */
export function createRedis(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  return new Client(url, options);
}
