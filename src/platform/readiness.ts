import type { Store } from '../store/ports.ts';
import { within, type RedisConnection } from './redis-connection.ts';

/** How long each check may take: a store or a Redis that hangs must not hang the probe. */
export const READINESS_CHECK_DEADLINE_MS = 2_000;

export type CheckState = 'up' | 'down';

/** Whether the instance can serve: each dependency's state, no address or secret. */
export interface Readiness {
  /** The store answers: the instance can serve every request. */
  readonly ready: boolean;
  /** Ready, but Redis (where set) is away: the instance serves on its own view until it returns. */
  readonly degraded: boolean;
  /** `redis` only where REDIS_URL is set. */
  readonly checks: { readonly store: CheckState; readonly redis?: CheckState };
}

/**
 * The store answers a trivial query, and Redis (when there is one) is connected and answers a
 * PING, each within READINESS_CHECK_DEADLINE_MS, both at once. Only the store decides `ready`:
 * without Redis every instance still serves, on its own view, and a balancer that took them all
 * out of its rotation when Redis went away would turn a degraded service into an outage.
 */
export async function checkReadiness(store: Pick<Store, 'ping'>, redis: RedisConnection | null): Promise<Readiness> {
  const [storeUp, redisUp] = await Promise.all([
    within(store.ping().then(() => true, () => false), READINESS_CHECK_DEADLINE_MS),
    redis ? redis.ping(READINESS_CHECK_DEADLINE_MS) : undefined,
  ]);
  const checks = {
    store: state(storeUp === true),
    ...(redis ? { redis: state(redisUp === true) } : {}),
  };
  const ready = checks.store === 'up';
  return { ready, degraded: ready && checks.redis === 'down', checks };
}

function state(up: boolean): CheckState {
  return up ? 'up' : 'down';
}
