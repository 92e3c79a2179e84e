import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { RateLimitDecision } from '../platform/rate-limit/rate-limiter.ts';
import type { ClientTurns } from '../platform/client-turns.ts';
import { clientKey } from '../endpoints/client-key.ts';
import { consumeAccountLimit, consumeClientLimit, NO_TURN, type RateLimitDependencies, rateLimitRefusal } from '../endpoints/sign-in-limits.ts';
import { sendProblem } from './problem.ts';
import type { RoutePhase } from './request-pipeline.ts';

export type { RateLimitDependencies } from '../endpoints/sign-in-limits.ts';

export interface RateLimitedOptions {
  /** The account a request names (the submitted e-mail or user name), read from the parsed body. */
  readonly account?: (request: FastifyRequest) => string | undefined;
}

type RateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

/** A route's limits, which the pipeline attaches where its list puts them (request-pipeline.ts). */
interface RouteRateLimits {
  /** Per IP, before the body is read (`onRequest`). */
  readonly perClient: RateLimitHook;
  /** Per account and IP, once the body is parsed and valid (`preHandler`). */
  readonly perAccount?: RateLimitHook;
}

/** Where a route's options carry its limits: a symbol, out of Fastify's and the application's way. */
const RATE_LIMITS: unique symbol = Symbol('gatehouse.rateLimits');

/** What `rateLimited` adds to a route's options. */
export interface RateLimitedRoute {
  readonly [RATE_LIMITS]: RouteRateLimits;
}

/**
 * The limits of the sign-in and account routes of docs/reference/configuration.md, spread into a
 * route's options: `{ schema, config, ...rateLimited(services, { account: (r) => … }) }`.
 *
 *   per client   per IP (RATE_LIMIT_IP_PER_MINUTE), before the body is read;
 *   per account  per account and IP (RATE_LIMIT_ACCOUNT_PER_MINUTE), once the body is parsed and
 *                valid, when it names an account.
 *
 * The route says which limits it has; the request pipeline says where they run (after the
 * route's authorization, `clientRateLimit` and `accountRateLimit` in request-pipeline.ts). Every
 * request counts, success or failure; the routes share one budget per key, so switching routes
 * gains a guesser nothing. Within its budget, a client has a few of these requests running at a
 * time and the rest held in line before their bodies are read (`waitForTurn`). "IP" is the client
 * key of `clientKey` (an IPv6 client's /64). A limit of 0 adds no check. Over a limit: 429
 * problem+json with `Retry-After` in whole seconds.
 */
export function rateLimited(
  services: RateLimitDependencies,
  options: RateLimitedOptions = {},
): RateLimitedRoute {
  const { config, signInTurns } = services;
  const perClient: RateLimitHook = async (request, reply) => {
    if (answer(reply, await consumeClientLimit(services, request.ip)) !== undefined) return reply;
    return waitForTurn(signInTurns, clientKey(request.ip), request, reply);
  };
  const accountOf = options.account;
  if (config.rateLimitAccountPerMinute <= 0 || accountOf === undefined) return { [RATE_LIMITS]: { perClient } };
  const perAccount: RateLimitHook = async (request, reply) => {
    const account = accountOf(request);
    if (account === undefined) return undefined;
    return answer(reply, await consumeAccountLimit(services, request.ip, account));
  };
  return { [RATE_LIMITS]: { perClient, perAccount } };
}

function limitsOf(route: RouteOptions): RouteRateLimits | undefined {
  return (route as Partial<RateLimitedRoute>)[RATE_LIMITS];
}

/** The pipeline's "rate limit per client" phase: the route's per-IP limit, when it has one. */
export const clientRateLimit: RoutePhase = { scope: 'route', forRoute: (route) => limitsOf(route)?.perClient };

/** The pipeline's "rate limit per account" phase: the route's per-account limit, when it has one. */
export const accountRateLimit: RoutePhase = { scope: 'route', forRoute: (route) => limitsOf(route)?.perAccount };

/**
 * Holds the request, before its body is read, until it is one of the few of its client running
 * (`ClientTurns`); the turn is let go when the answer has gone or the connection closed. A client
 * with too many requests held is refused 429, and so is a request whose client left while it waited.
 */
async function waitForTurn(turns: ClientTurns, client: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const turn = turns.enter(client);
  if (turn === null) return answer(reply, NO_TURN);
  // 'finish' when the answer has gone, 'close' also when the connection went first.
  reply.raw.once('finish', turn.leave).once('close', turn.leave);
  if (await turn.ready) return undefined;
  return answer(reply, NO_TURN);
}

/** Refuses the request (and ends its lifecycle) when the decision says so. */
function answer(reply: FastifyReply, decision: RateLimitDecision): FastifyReply | undefined {
  const refusal = rateLimitRefusal(decision);
  if (refusal === undefined) return undefined;
  reply.header('retry-after', String(refusal.retryAfterSeconds));
  return sendProblem(reply, refusal.problem);
}
