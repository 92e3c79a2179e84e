/**
 * Rate limits of the sign-in routes (docs/reference/configuration.md and docs/reference/http.md):
 * per account and IP, and per IP; every request counts, success or failure; 429 problem+json
 * with `Retry-After`; 0 turns a limit off; shared across instances through Redis when
 * REDIS_URL is set, per instance otherwise. Driven through `POST /auth/token` on each engine.
 * (An unreachable Redis degrading to per-instance limits: src/platform/rate-limit/rate-limiter.test.ts.)
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines, redisAvailable } from '../helpers/databases.ts';
import { json, startTestApp, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const redisUp = await redisAvailable();
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITS = { RATE_LIMIT_ACCOUNT_PER_MINUTE: '3', RATE_LIMIT_IP_PER_MINUTE: '5' };

/** A fresh client address per test: Redis counters outlive a test, and other files share Redis. */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const freshEmail = () => `nobody-${randomBytes(6).toString('hex')}@example.com`;

function tokenRequest(app: TestApp, payload: Record<string, unknown> | string, remoteAddress: string) {
  return app.app.inject({ method: 'POST', url: '/auth/token', payload, remoteAddress, headers: { 'content-type': 'application/json' } });
}

/**
 * 429 with `Retry-After` of the seconds left in the window: `retryAfter` exactly, or, where the
 * window runs on real time (Redis's TTL), at most that and no less than `retryAfter - slack`
 * (a loaded machine takes seconds over the requests before it).
 */
function expectRateLimited(response: LightMyRequestResponse, retryAfter = '60', slack = 0): void {
  expect(response.statusCode).toBe(429);
  const seconds = Number(response.headers['retry-after']);
  expect(seconds).toBeLessThanOrEqual(Number(retryAfter));
  expect(seconds).toBeGreaterThanOrEqual(Number(retryAfter) - slack);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(json(response)).toMatchObject({ status: 429, title: 'Too Many Requests', code: 'GH_RATE_LIMITED' });
}

async function statuses(count: number, send: (i: number) => Promise<LightMyRequestResponse>): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < count; i++) codes.push((await send(i)).statusCode);
  return codes;
}

describe.each(engines)('rate limits on $engine', (engine) => {
  describe('with small limits (3 per account and IP, 5 per IP)', () => {
    const clock = new ManualClock();
    const ctx = useTestApp(engine, { env: LIMITS, clock });

    it('refuses the fourth request for one account from one IP with 429, Retry-After and problem+json', async () => {
      const ip = freshIp();
      const email = freshEmail();
      expect(await statuses(3, () => tokenRequest(ctx, { email, password: 'wrong password' }, ip))).toEqual([401, 401, 401]);
      expectRateLimited(await tokenRequest(ctx, { email, password: 'wrong password' }, ip));
      // The account in another case is the same account.
      expectRateLimited(await tokenRequest(ctx, { email: email.toUpperCase(), password: 'wrong password' }, ip));
    });

    it('keeps separate budgets for another account, and for the same account from another IP', async () => {
      const ip = freshIp();
      const email = freshEmail();
      await statuses(3, () => tokenRequest(ctx, { email, password: 'x' }, ip));
      expect((await tokenRequest(ctx, { email: freshEmail(), password: 'x' }, ip)).statusCode).toBe(401);
      expect((await tokenRequest(ctx, { email, password: 'x' }, freshIp())).statusCode).toBe(401);
    });

    it('counts successful sign-ins too', async () => {
      const { user, password } = await ctx.createUser();
      const ip = freshIp();
      expect(await statuses(3, () => tokenRequest(ctx, { email: user.email, password }, ip))).toEqual([200, 200, 200]);
      expectRateLimited(await tokenRequest(ctx, { email: user.email, password }, ip));
    });

    it('limits an IP across accounts, counting before the body is read, so even a malformed body gets 429', async () => {
      const ip = freshIp();
      expect(await statuses(5, () => tokenRequest(ctx, { email: freshEmail(), password: 'x' }, ip))).toEqual([401, 401, 401, 401, 401]);
      expectRateLimited(await tokenRequest(ctx, { email: freshEmail(), password: 'x' }, ip));
      expectRateLimited(await tokenRequest(ctx, '{"email": ', ip));
    });

    it('counts down Retry-After in whole seconds and opens a new window after a minute', async () => {
      const ip = freshIp();
      const email = freshEmail();
      await statuses(3, () => tokenRequest(ctx, { email, password: 'x' }, ip));
      clock.advance(30_500);
      expectRateLimited(await tokenRequest(ctx, { email, password: 'x' }, ip), '30');
      clock.advance(29_500);
      expect((await tokenRequest(ctx, { email, password: 'x' }, ip)).statusCode).toBe(401);
    });
  });

  describe('with both limits set to 0', () => {
    const ctx = useTestApp(engine, { env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });

    it('never answers 429', async () => {
      const ip = freshIp();
      const email = freshEmail();
      expect(await statuses(15, () => tokenRequest(ctx, { email, password: 'x' }, ip))).toEqual(Array(15).fill(401));
    });
  });

  describe('with only the account limit off', () => {
    const ctx = useTestApp(engine, { env: { ...LIMITS, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0' }, clock: new ManualClock() });

    it('still limits the IP', async () => {
      const ip = freshIp();
      const email = freshEmail();
      expect(await statuses(5, () => tokenRequest(ctx, { email, password: 'x' }, ip))).toEqual(Array(5).fill(401));
      expectRateLimited(await tokenRequest(ctx, { email, password: 'x' }, ip));
    });
  });

  describe('two instances on one database', () => {
    const apps: TestApp[] = [];
    afterAll(async () => {
      await Promise.all(apps.splice(0).map((app) => app.close()));
      await engine.dropAll();
    });

    async function pair(env: Record<string, string>): Promise<[TestApp, TestApp]> {
      const databaseUrl = await engine.createDatabaseUrl();
      // Counted windows without Redis run on this clock, which no test moves: a loaded machine cannot shorten them.
      const clock = new ManualClock();
      const first = await startTestApp(databaseUrl, { env, clock });
      const second = await startTestApp(databaseUrl, { env, clock });
      apps.push(first, second);
      return [first, second];
    }

    it.runIf(redisUp)('share one budget through Redis, under keys prefixed gatehouse:rl:', async () => {
      const [first, second] = await pair({ ...LIMITS, REDIS_URL });
      const ip = freshIp();
      const email = freshEmail();
      const codes = await statuses(4, (i) => tokenRequest(i % 2 === 0 ? first : second, { email, password: 'x' }, ip));
      expect(codes).toEqual([401, 401, 401, 429]);
      expectRateLimited(await tokenRequest(first, { email, password: 'x' }, ip), '60', 10);
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.get(`gatehouse:rl:ip:${ip}`)).toBe('5');
        expect(await redis.pttl(`gatehouse:rl:ip:${ip}`)).toBeGreaterThan(50_000);
      } finally {
        redis.disconnect();
      }
    });

    it('each count alone without Redis', async () => {
      const [first, second] = await pair(LIMITS);
      const ip = freshIp();
      const email = freshEmail();
      const codes = await statuses(6, (i) => tokenRequest(i % 2 === 0 ? first : second, { email, password: 'x' }, ip));
      expect(codes).toEqual(Array(6).fill(401));
      expectRateLimited(await tokenRequest(first, { email, password: 'x' }, ip));
    });
  });
});
