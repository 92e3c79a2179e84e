/**
 * SEC-33, SEC-34 (docs/reference/tokens.md) — rotation and reuse detection, one request at a time.
 * Pins that:
 *   - a used refresh token is refused (bare 401, empty body) (SEC-33);
 *   - replaying a rotated token ends its whole family: the legitimate client's newer token and
 *     every later descendant are refused too, and a `refresh.reuse` audit event names the user
 *     (SEC-34, SEC-124);
 *   - with REFRESH_REUSE_GRACE_SECONDS > 0, the immediate predecessor presented again within
 *     the window gets the very same pair back (no second live branch), the successor keeps
 *     working; after the window, or once the successor has itself been used, the replay is
 *     reuse and ends the family;
 *   - the family's access tokens are refused at once, on the instance that saw the replay and
 *     at `POST /auth/revoke`, without waiting for the revocation feed's next read.
 * On each store engine.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { type Pair, refresh, signIn } from '../helpers/refresh-tokens.ts';

const engines = await testEngines();

async function rotate(ctx: TestApp, refreshToken: string): Promise<Pair> {
  const response = await refresh(ctx, refreshToken);
  expect(response.statusCode).toBe(200);
  return json<Pair>(response);
}

async function reuseEvents(ctx: TestApp, userId: number) {
  const events = await ctx.services.store.audit.list({ limit: 200 });
  return events.filter((event) => event.type === 'refresh.reuse' && event.userId === userId);
}

describe.each(engines)('refresh-token reuse on $engine (SEC-33, SEC-34)', (engine) => {
  const ctx = useTestApp(engine);

  it('refuses a token the second time with a bare 401 (SEC-33)', async () => {
    const { pair } = await signIn(ctx);
    const r2 = await rotate(ctx, pair.refreshToken);
    expect(r2.refreshToken).not.toBe(pair.refreshToken);
    const replay = await refresh(ctx, pair.refreshToken);
    expect(replay.statusCode).toBe(401);
    expect(replay.body).toBe('');
    expect(replay.headers['content-length'] ?? '0').toBe('0');
  });

  it('revokes the whole family when a rotated token is replayed: the newer token fails too, and a refresh.reuse event names the user (SEC-34)', async () => {
    const { user, pair } = await signIn(ctx);
    const r1 = pair.refreshToken;
    const legit = await rotate(ctx, r1);
    expect(await reuseEvents(ctx, user.id)).toEqual([]);

    const attacker = await refresh(ctx, r1);
    expect(attacker.statusCode).toBe(401);
    expect(attacker.body).toBe('');

    const victim = await refresh(ctx, legit.refreshToken);
    expect(victim.statusCode).toBe(401);
    expect(victim.body).toBe('');

    const events = await reuseEvents(ctx, user.id);
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events[0]).toMatchObject({ type: 'refresh.reuse', userId: user.id });
  });

  it("refuses the family's access token at once after a replay, and after /auth/revoke", async () => {
    const me = (accessToken: string) => ctx.app.inject({ url: '/me', headers: bearer(accessToken) });
    const replayed = await signIn(ctx);
    const legit = await rotate(ctx, replayed.pair.refreshToken);
    expect((await me(legit.accessToken)).statusCode).toBe(200);
    expect((await refresh(ctx, replayed.pair.refreshToken)).statusCode).toBe(401);
    expect((await me(legit.accessToken)).statusCode).toBe(401);

    const revoked = await signIn(ctx);
    expect((await me(revoked.pair.accessToken)).statusCode).toBe(200);
    const answer = await ctx.app.inject({ method: 'POST', url: '/auth/revoke', payload: { refreshToken: revoked.pair.refreshToken } });
    expect(answer.statusCode).toBe(204);
    expect((await me(revoked.pair.accessToken)).statusCode).toBe(401);
  });

  it('revokes every descendant: a replay of the first token ends a chain several rotations long', async () => {
    const { pair } = await signIn(ctx);
    const chain = [pair.refreshToken];
    for (let i = 0; i < 3; i++) chain.push((await rotate(ctx, chain.at(-1)!)).refreshToken);
    expect((await refresh(ctx, chain[0]!)).statusCode).toBe(401);
    for (const token of chain) expect((await refresh(ctx, token)).statusCode).toBe(401);
  });

  it('also ends the family when the replayed token is one from the middle of the chain', async () => {
    const { pair } = await signIn(ctx);
    const r2 = (await rotate(ctx, pair.refreshToken)).refreshToken;
    const r3 = (await rotate(ctx, r2)).refreshToken;
    expect((await refresh(ctx, r2)).statusCode).toBe(401);
    expect((await refresh(ctx, r3)).statusCode).toBe(401);
  });

  it('leaves the user’s other families alone when one family is revoked for reuse', async () => {
    const { user, password, pair } = await signIn(ctx);
    const other = json<Pair>(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }));
    await rotate(ctx, pair.refreshToken);
    expect((await refresh(ctx, pair.refreshToken)).statusCode).toBe(401);
    expect((await refresh(ctx, other.refreshToken)).statusCode).toBe(200);
  });

  it('counts no reuse and writes no reuse event for a token that was never issued', async () => {
    const { user } = await signIn(ctx);
    expect((await refresh(ctx, 'B'.repeat(43))).statusCode).toBe(401);
    expect(await reuseEvents(ctx, user.id)).toEqual([]);
  });
});

describe.each(engines)('refresh-token reuse grace window on $engine (SEC-35 retries)', (engine) => {
  const clock = new ManualClock();
  const ctx = useTestApp(engine, { env: { REFRESH_REUSE_GRACE_SECONDS: '10' }, clock });

  it('answers the very same pair to the immediate predecessor within the window, and the successor goes on working', async () => {
    const { user, pair } = await signIn(ctx);
    const r1 = pair.refreshToken;
    const p = await rotate(ctx, r1);
    clock.advance(5_000);
    const again = await refresh(ctx, r1);
    expect(again.statusCode).toBe(200);
    const repeated = json<Pair>(again);
    expect(repeated.refreshToken).toBe(p.refreshToken);
    expect(repeated.accessToken).toBe(p.accessToken);
    // A third time, later in the window: still the same.
    clock.advance(4_000);
    expect(json<Pair>(await refresh(ctx, r1))).toMatchObject({ refreshToken: p.refreshToken, accessToken: p.accessToken });

    const me = await ctx.app.inject({ url: '/me', headers: bearer(repeated.accessToken) });
    expect(me.statusCode).toBe(200);
    const next = await refresh(ctx, p.refreshToken);
    expect(next.statusCode).toBe(200);
    expect(json<Pair>(next).refreshToken).not.toBe(p.refreshToken);
    expect(await reuseEvents(ctx, user.id)).toEqual([]);
  });

  it('treats the predecessor after the window as reuse: 401 and the family, successor included, is revoked', async () => {
    const { user, pair } = await signIn(ctx);
    const r1 = pair.refreshToken;
    const p = await rotate(ctx, r1);
    clock.advance(10_001);
    const late = await refresh(ctx, r1);
    expect(late.statusCode).toBe(401);
    expect(late.body).toBe('');
    expect((await refresh(ctx, p.refreshToken)).statusCode).toBe(401);
    expect((await reuseEvents(ctx, user.id)).length).toBeGreaterThanOrEqual(1);
  });

  it('treats the predecessor as reuse once its successor has been used, even within the window', async () => {
    const { pair } = await signIn(ctx);
    const r1 = pair.refreshToken;
    const p = await rotate(ctx, r1);
    const p3 = await rotate(ctx, p.refreshToken);
    clock.advance(1_000);
    expect((await refresh(ctx, r1)).statusCode).toBe(401);
    expect((await refresh(ctx, p3.refreshToken)).statusCode).toBe(401);
  });
});
