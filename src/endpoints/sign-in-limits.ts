import { createHash } from 'node:crypto';
import type { Config } from '../config/config.ts';
import { normalizeEmail, normalizeUserName } from '../identity/normalize.ts';
import type { ClientTurns } from '../platform/client-turns.ts';
import type { RateLimitDecision, RateLimiter } from '../platform/rate-limit/rate-limiter.ts';
import { problem, type ProblemBody } from '../security/problem-details.ts';
import { clientKey } from './client-key.ts';

/** What the rate limits of an endpoint count with: the settings, the counters, and the line of sign-ins each client waits in. */
export interface RateLimitDependencies {
  readonly config: Config;
  readonly rateLimiter: RateLimiter;
  readonly signInTurns: ClientTurns;
}

/** A refusal of a limit: 429 problem+json with `Retry-After` in whole seconds. */
export interface RateLimitRefusal {
  readonly problem: ProblemBody;
  readonly retryAfterSeconds: number;
}

/** The refusal a decision calls for, or undefined when it allows the request. */
export function rateLimitRefusal(decision: RateLimitDecision): RateLimitRefusal | undefined {
  return decision.allowed ? undefined : limited(decision.retryAfterSeconds);
}

function limited(retryAfterSeconds: number): RateLimitRefusal {
  return { problem: problem('GH_RATE_LIMITED', (m) => m.problemRateLimited), retryAfterSeconds };
}

/** A client's place in the line of sign-ins refused: too many held, or the client left while it waited. */
export const NO_TURN = Object.freeze({ allowed: false, retryAfterSeconds: 1 } as const);

/** The refusal of `NO_TURN`. */
export const NO_TURN_REFUSAL: RateLimitRefusal = Object.freeze(limited(NO_TURN.retryAfterSeconds));

/** Counts a request against its client's budget (`RATE_LIMIT_IP_PER_MINUTE`); a limit of 0 counts nothing. */
export async function consumeClientLimit({ config, rateLimiter }: RateLimitDependencies, ip: string | undefined): Promise<RateLimitDecision> {
  const limit = config.rateLimitIpPerMinute;
  if (limit <= 0) return ALLOWED;
  return rateLimiter.consume(`ip:${clientKey(ip)}`, limit);
}

/** Counts a request against the budget of the account it names and its client (`RATE_LIMIT_ACCOUNT_PER_MINUTE`). */
export async function consumeAccountLimit({ config, rateLimiter }: RateLimitDependencies, ip: string | undefined, account: string): Promise<RateLimitDecision> {
  const limit = config.rateLimitAccountPerMinute;
  if (limit <= 0) return ALLOWED;
  return rateLimiter.consume(accountKey(clientKey(ip), account), limit);
}

/**
 * The account of a known user (a signed-in caller, or the one a two-factor cookie names): the
 * second steps of the user's sign-ins and the account operations that check a password or code
 * share one budget.
 */
export function userAccount(userId: number): string {
  return `user#${userId}`;
}

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/**
 * The account in its canonical form (so `Ada@X.io` and `ada@x.io` share a budget), hashed:
 * counters in Redis hold no e-mail addresses.
 */
function accountKey(client: string, account: string): string {
  const canonical = account.includes('@') ? normalizeEmail(account) : normalizeUserName(account);
  return `account:${client}:${createHash('sha256').update(canonical).digest('base64url')}`;
}
