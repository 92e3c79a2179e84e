import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import { normalizeEmail, normalizeUserName } from '../identity/normalize.ts';
import type { RateLimitDecision, RateLimiter } from '../platform/rate-limit/rate-limiter.ts';
import { clientKey } from './client-key.ts';
import { problem, sendProblem } from './problem.ts';

export interface RateLimitedOptions {
  /** The account a request names (the submitted e-mail or user name), read from the parsed body. */
  readonly account?: (request: FastifyRequest) => string | undefined;
}

type RateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

/**
 * Route hooks for the sign-in and account routes of docs/reference/configuration.md, spread into a route's
 * options: `{ schema, config, ...rateLimited(services, { account: (r) => … }) }`.
 *
 *   onRequest   per IP (RATE_LIMIT_IP_PER_MINUTE), before the body is read;
 *   preHandler  per account and IP (RATE_LIMIT_ACCOUNT_PER_MINUTE), once the body is parsed and
 *               valid, when it names an account.
 *
 * Every request counts, success or failure; the routes share one budget per key, so switching
 * routes gains a guesser nothing. "IP" is the client key of `clientKey` (an IPv6 client's /64). A limit of 0 adds no hook. Over a limit: 429 problem+json
 * with `Retry-After` in whole seconds.
 */
export function rateLimited(
  services: { readonly config: Config; readonly rateLimiter: RateLimiter },
  options: RateLimitedOptions = {},
): { onRequest?: RateLimitHook; preHandler?: RateLimitHook } {
  const { config, rateLimiter } = services;
  const hooks: { onRequest?: RateLimitHook; preHandler?: RateLimitHook } = {};
  const ipLimit = config.rateLimitIpPerMinute;
  if (ipLimit > 0) {
    hooks.onRequest = async (request, reply) => answer(reply, await rateLimiter.consume(`ip:${clientKey(request.ip)}`, ipLimit));
  }
  const accountLimit = config.rateLimitAccountPerMinute;
  const accountOf = options.account;
  if (accountLimit > 0 && accountOf) {
    hooks.preHandler = async (request, reply) => {
      const account = accountOf(request);
      if (account === undefined) return undefined;
      return answer(reply, await rateLimiter.consume(accountKey(clientKey(request.ip), account), accountLimit));
    };
  }
  return hooks;
}

/**
 * The account of a known user (a signed-in caller, or the one a two-factor cookie names): the
 * second steps of the user's sign-ins and the account operations that check a password or code
 * share one budget.
 */
export function userAccount(userId: number): string {
  return `user#${userId}`;
}

/** Refuses the request (and ends its lifecycle) when the decision says so. */
function answer(reply: FastifyReply, decision: RateLimitDecision): FastifyReply | undefined {
  if (decision.allowed) return undefined;
  reply.header('retry-after', String(decision.retryAfterSeconds));
  return sendProblem(reply, problem('GH_RATE_LIMITED', 'Too many requests; try again later.'));
}

/**
 * The account in its canonical form (so `Ada@X.io` and `ada@x.io` share a budget), hashed:
 * counters in Redis hold no e-mail addresses.
 */
function accountKey(client: string, account: string): string {
  const canonical = account.includes('@') ? normalizeEmail(account) : normalizeUserName(account);
  return `account:${client}:${createHash('sha256').update(canonical).digest('base64url')}`;
}
