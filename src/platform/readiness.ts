import type { Store } from '../store/ports.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import { within, type RedisConnection } from './redis-connection.ts';

/** How long each check may take: a store or a Redis that hangs must not hang the probe. */
export const READINESS_CHECK_DEADLINE_MS = 2_000;

export type CheckState = 'up' | 'down';
/** `stale`: the revocation feed has not read the store for longer than the contract's 5 seconds. */
export type RevocationsState = 'current' | 'stale';

/** Whether the instance can serve: each dependency's state, no address or secret. */
export interface Readiness {
  /** The store answers and the revocations are current: the instance can serve every request. */
  readonly ready: boolean;
  /** Ready, but Redis (where set) is away: the instance serves on its own view until it returns. */
  readonly degraded: boolean;
  /** `redis` only where REDIS_URL is set. */
  readonly checks: { readonly store: CheckState; readonly revocations: RevocationsState; readonly redis?: CheckState };
}

/**
 * The store answers a trivial query, and Redis (when there is one) is connected and answers a
 * PING, each within READINESS_CHECK_DEADLINE_MS, both at once; and the revocation feed has read
 * the store within the contract's 5 seconds (otherwise bearer tokens and API keys are refused
 * with 503 here). Only the store and the revocations decide `ready`:
 * without Redis every instance still serves, on its own view, and a balancer that took them all
 * out of its rotation when Redis went away would turn a degraded service into an outage.
 */
export async function checkReadiness(
  store: Pick<Store, 'ping'>,
  redis: RedisConnection | null,
  revocations: Pick<RevocationList, 'stale'>,
): Promise<Readiness> {
  const [storeUp, redisUp] = await Promise.all([
    within(store.ping().then(() => true, () => false), READINESS_CHECK_DEADLINE_MS),
    redis ? redis.ping(READINESS_CHECK_DEADLINE_MS) : undefined,
  ]);
  const checks = {
    store: state(storeUp === true),
    revocations: revocations.stale ? ('stale' as const) : ('current' as const),
    ...(redis ? { redis: state(redisUp === true) } : {}),
  };
  const ready = checks.store === 'up' && checks.revocations === 'current';
  return { ready, degraded: ready && checks.redis === 'down', checks };
}

function state(up: boolean): CheckState {
  return up ? 'up' : 'down';
}
