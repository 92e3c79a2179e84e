/**
 * Replaying a captured two-factor cookie (docs/reference/http.md): the
 * cookie of the first step proves only that the password was right a moment ago, and a completed
 * second step spends it in the store, not merely by clearing it in the browser. Whoever copied it
 * (before or after) gets 401 `{"succeeded":false}` with it, even with a valid code of their own;
 * of concurrent second steps with one cookie exactly one signs in; a wrong code does not spend it.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator, wrongCode, type TwoFactorUser } from '../helpers/two-factor.ts';

const [sqlite] = await testEngines();
const STEP_MS = 30_000;

describe('replaying a spent two-factor cookie', () => {
  let ctx: TestApp;
  let clock: ManualClock;
  let victim: TwoFactorUser;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 3, 1, 9));
    ctx = await startTestApp(await sqlite!.createDatabaseUrl(), { clock, env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });
    victim = await userWithAuthenticator(ctx, clock);
  });
  afterEach(() => ctx.close());
  afterAll(() => sqlite!.dropAll());

  /** The first step, as the victim's browser does it: the two-factor cookie. */
  const firstStep = async () => {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: victim.email, password: victim.password } });
    expect(json(response)).toEqual({ succeeded: false, requiresTwoFactor: true });
    return cookiePair(authSetCookie(response, 'gh.twofactor')!);
  };
  const post = (url: string, cookie: string, payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url, payload, headers: { cookie } });
  const nextCode = () => {
    clock.advance(STEP_MS);
    return totpCode(victim.sharedKey, 0, clock.now());
  };

  it('refuses the cookie of a completed /account/login/2fa, with a new valid code too', async () => {
    const captured = await firstStep();
    const done = await post('/account/login/2fa', captured, { code: nextCode() });
    expect(done.statusCode).toBe(200);
    expect(authSetCookie(done, 'gh.twofactor')).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);

    for (const [url, payload] of [
      ['/account/login/2fa', { code: nextCode() }],
      ['/account/login/recovery', { recoveryCode: victim.recoveryCodes[0] }],
    ] as const) {
      const replay = await post(url, captured, payload);
      expect(replay.statusCode, url).toBe(401);
      expect(json(replay), url).toMatchObject({ succeeded: false });
      expect(authSetCookie(replay), url).toBeUndefined();
    }
    // The recovery code was not the problem: a fresh first step takes it.
    expect((await post('/account/login/recovery', await firstStep(), { recoveryCode: victim.recoveryCodes[0] })).statusCode).toBe(200);
  });

  it('refuses the cookie of a completed /account/login/recovery', async () => {
    const captured = await firstStep();
    expect((await post('/account/login/recovery', captured, { recoveryCode: victim.recoveryCodes[1] })).statusCode).toBe(200);
    const replay = await post('/account/login/recovery', captured, { recoveryCode: victim.recoveryCodes[2] });
    expect(replay.statusCode).toBe(401);
    expect(json(replay)).toMatchObject({ succeeded: false });
  });

  it('lets exactly one of concurrent second steps with one cookie sign in', async () => {
    const captured = await firstStep();
    const results = await Promise.all(
      victim.recoveryCodes.slice(0, 6).map((recoveryCode) => post('/account/login/recovery', captured, { recoveryCode })),
    );
    expect(results.map((response) => response.statusCode).sort()).toEqual([200, 401, 401, 401, 401, 401]);
  });

  it('is not spent by a wrong code: the owner who mistyped goes on with the same cookie', async () => {
    const pending = await firstStep();
    expect((await post('/account/login/2fa', pending, { code: wrongCode(victim.sharedKey, clock.now()) })).statusCode).toBe(401);
    expect((await post('/account/login/2fa', pending, { code: nextCode() })).statusCode).toBe(200);
  });
});
