/**
 * SEC-36 (docs/reference/tokens.md: a family's lifetime is fixed at its first issue) — with
 * REFRESH_TOKEN_DAYS=1 and a manual clock, pins that:
 *   - a chain rotated every 6 hours stops at exactly one day after the sign-in (not one day
 *     after the last rotation): the last rotation before the end works, the first after fails;
 *   - an unused token is refused after the family's lifetime;
 *   - the rotated gh.refresh cookie keeps the family's end as its expiry instead of sliding.
 * On each store engine.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

interface Pair {
  accessToken: string;
  refreshToken: string;
}

async function signIn(ctx: TestApp, extra: Record<string, unknown> = {}) {
  const { user, password } = await ctx.createUser();
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password, ...extra } });
  expect(response.statusCode).toBe(200);
  return { user, response, pair: json<Pair>(response) };
}

function refresh(ctx: TestApp, refreshToken: string) {
  return ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
}

function refreshCookie(response: LightMyRequestResponse) {
  const cookie = response.cookies.find((c) => c.name === 'gh.refresh');
  expect(cookie).toBeDefined();
  return cookie!;
}

describe.each(engines)('refresh-token expiry on $engine (SEC-36)', (engine) => {
  const clock = new ManualClock();
  const ctx = useTestApp(engine, { env: { REFRESH_TOKEN_DAYS: '1' }, clock });

  it('ends a chain rotated every 6 hours at the family’s absolute lifetime, counted from the first issue', async () => {
    const { pair } = await signIn(ctx);
    const issuedAt = clock.now();
    let current = pair.refreshToken;
    for (const hours of [6, 12, 18]) {
      clock.set(issuedAt + hours * HOUR);
      const response = await refresh(ctx, current);
      expect(response.statusCode, `after ${hours} h`).toBe(200);
      const next = json<Pair>(response);
      expect((await ctx.app.inject({ url: '/me', headers: bearer(next.accessToken) })).statusCode).toBe(200);
      current = next.refreshToken;
    }
    // Just before the end: the last rotation still works (lifetime not counted from here).
    clock.set(issuedAt + DAY - 1000);
    const last = await refresh(ctx, current);
    expect(last.statusCode).toBe(200);
    current = json<Pair>(last).refreshToken;
    // At the end of the first day since sign-in, 1 s after the previous rotation: over.
    clock.set(issuedAt + DAY);
    const over = await refresh(ctx, current);
    expect(over.statusCode).toBe(401);
    expect(over.body).toBe('');
    clock.advance(6 * HOUR);
    expect((await refresh(ctx, current)).statusCode).toBe(401);
  });

  it('refuses an unused token after the family’s lifetime, and a fresh sign-in works again', async () => {
    const { user, password } = await ctx.createUser();
    const first = json<Pair>(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }));
    clock.advance(DAY + 1000);
    expect((await refresh(ctx, first.refreshToken)).statusCode).toBe(401);
    const second = json<Pair>(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }));
    expect((await refresh(ctx, second.refreshToken)).statusCode).toBe(200);
  });

  it('keeps the family’s end as the expiry of every rotated cookie', async () => {
    const { response } = await signIn(ctx, { setCookie: true });
    const issuedAt = clock.now();
    const original = refreshCookie(response);
    expect(new Date(original.expires!).getTime()).toBe(Math.floor((issuedAt + DAY) / 1000) * 1000);
    clock.advance(6 * HOUR);
    const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { 'gh.refresh': original.value } });
    expect(refreshed.statusCode).toBe(200);
    const rotated = refreshCookie(refreshed);
    expect(rotated.value).not.toBe(original.value);
    expect(new Date(rotated.expires!).getTime()).toBe(new Date(original.expires!).getTime());
  });
});
