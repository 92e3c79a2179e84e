/**
 * SEC-35 (docs/reference/tokens.md: "of many concurrent calls with one token exactly one wins, and the
 * losers count as reuse") and the concurrent half of SEC-37. Pins that:
 *   - 50 concurrent refreshes with one token (REFRESH_REUSE_GRACE_SECONDS=0, the default) give
 *     exactly one 200 and 401s otherwise, never a 500; the losers count as reuse, so the
 *     winner's new token is refused as well (the family is revoked);
 *   - with a grace window, the same burst gives 200 to every caller with one and the same pair
 *     (no second live branch), and that pair's refresh token works afterwards;
 *   - refreshes racing an admin lock: once the lock has completed, no refresh token of the user
 *     works, whichever side won each race.
 * On each store engine (PostgreSQL exercises real row locks).
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { type Pair, refresh, signIn } from '../helpers/refresh-tokens.ts';

const engines = await testEngines();
const BURST = 50;

function burst(ctx: TestApp, refreshToken: string): Promise<LightMyRequestResponse[]> {
  return Promise.all(Array.from({ length: BURST }, () => refresh(ctx, refreshToken)));
}

describe.each(engines)('concurrent refresh on $engine (SEC-35)', (engine) => {
  const ctx = useTestApp(engine);

  it(`lets exactly one of ${BURST} concurrent refreshes with one token win, and the losers' reuse revokes the winner's token`, async () => {
    const { user, pair } = await signIn(ctx);
    const responses = await burst(ctx, pair.refreshToken);
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(BURST - 1);
    for (const response of responses.filter((r) => r.statusCode === 401)) expect(response.body).toBe('');

    const winner = json<Pair>(responses.find((response) => response.statusCode === 200)!);
    expect(winner.refreshToken).not.toBe(pair.refreshToken);
    expect((await refresh(ctx, winner.refreshToken)).statusCode).toBe(401);
    expect((await refresh(ctx, pair.refreshToken)).statusCode).toBe(401);

    const events = await ctx.services.store.audit.list({ limit: 200 });
    expect(events.some((event) => event.type === 'refresh.reuse' && event.userId === user.id)).toBe(true);
  });

  it('keeps separate families apart under concurrency: bursts on two families each give one winner', async () => {
    const a = await signIn(ctx);
    const b = await signIn(ctx);
    const [first, second] = await Promise.all([burst(ctx, a.pair.refreshToken), burst(ctx, b.pair.refreshToken)]);
    expect(first!.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(second!.filter((response) => response.statusCode === 200)).toHaveLength(1);
  });
});

describe.each(engines)('concurrent refresh with a grace window on $engine (SEC-35)', (engine) => {
  const clock = new ManualClock();
  const ctx = useTestApp(engine, { env: { REFRESH_REUSE_GRACE_SECONDS: '10' }, clock });

  it(`answers all ${BURST} concurrent refreshes with one token with one and the same pair, whose refresh token then works`, async () => {
    const { user, pair } = await signIn(ctx);
    const responses = await burst(ctx, pair.refreshToken);
    expect(responses.map((response) => response.statusCode)).toEqual(Array(BURST).fill(200));
    const pairs = responses.map((response) => json<Pair>(response));
    expect(new Set(pairs.map((p) => p.refreshToken)).size).toBe(1);
    expect(new Set(pairs.map((p) => p.accessToken)).size).toBe(1);
    const shared = pairs[0]!;
    expect(shared.refreshToken).not.toBe(pair.refreshToken);

    expect((await ctx.app.inject({ url: '/me', headers: bearer(shared.accessToken) })).statusCode).toBe(200);
    const next = await refresh(ctx, shared.refreshToken);
    expect(next.statusCode).toBe(200);
    const events = await ctx.services.store.audit.list({ limit: 200 });
    expect(events.filter((event) => event.type === 'refresh.reuse' && event.userId === user.id)).toEqual([]);
  });
});

describe.each(engines)('refresh racing an admin lock on $engine (SEC-35, SEC-37)', (engine) => {
  const ctx = useTestApp(engine);

  it('leaves no working refresh token of the user once a concurrent admin lock has completed', async () => {
    const { user, password, pair } = await signIn(ctx);
    const tokens = [pair.refreshToken];
    for (let i = 0; i < 3; i++) {
      const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
      tokens.push(json<Pair>(response).refreshToken);
    }
    // One chain step ahead in each family, so the race hits tokens with and without a parent.
    const current = await Promise.all(tokens.map(async (token) => json<Pair>(await refresh(ctx, token)).refreshToken));

    const refreshes = current.flatMap((token) => Array.from({ length: 5 }, () => refresh(ctx, token)));
    const lock = ctx.services.users.lock(user.id);
    const results = await Promise.all([...refreshes.slice(0, 10), lock.then(() => null), ...refreshes.slice(10)]);
    const responses = results.filter((result): result is LightMyRequestResponse => result !== null);
    for (const response of responses) expect([200, 401]).toContain(response.statusCode);

    const seen = [...tokens, ...current, ...responses.filter((r) => r.statusCode === 200).map((r) => json<Pair>(r).refreshToken)];
    for (const token of seen) {
      const response = await refresh(ctx, token);
      expect(response.statusCode, 'a refresh token outlived the admin lock').toBe(401);
    }
  });

  it('leaves no working refresh token when the lock and a first refresh of a brand-new family race', async () => {
    for (let round = 0; round < 5; round++) {
      const { user, pair } = await signIn(ctx);
      const [response] = await Promise.all([refresh(ctx, pair.refreshToken), ctx.services.users.lock(user.id)]);
      expect([200, 401]).toContain(response.statusCode);
      if (response.statusCode === 200) expect((await refresh(ctx, json<Pair>(response).refreshToken)).statusCode).toBe(401);
      expect((await refresh(ctx, pair.refreshToken)).statusCode).toBe(401);
    }
  });
});
