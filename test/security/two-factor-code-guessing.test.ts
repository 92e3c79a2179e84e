/**
 * Guessing the second factor through the account operations that check one (docs/reference/configuration.md, docs/reference/http.md, docs/reference/membership.md and docs/reference/security-events.md): someone holding a session (a stolen cookie) must not
 * get unlimited guesses at a TOTP or recovery code at `/account/2fa/disable`,
 * `/account/2fa/recovery-codes` or `/account/2fa/authenticator`. Every wrong code counts on the
 * account's one failure counter, across the three routes and with the sign-in's second step; at
 * LOCKOUT_MAX_ATTEMPTS the account locks (mail to the owner, `lockout` event); each wrong code is a
 * `signin.failed` event naming the operation; while locked no code is checked (429
 * GH_LOCKED_OUT with Retry-After, the right code included), yet the session goes on; the
 * signed-in user's rate limit counts these requests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator, wrongCode } from '../helpers/two-factor.ts';

const [sqlite] = await testEngines();
const LOCKOUT_MS = 5 * 60_000;
const STEP_MS = 30_000;

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await sqlite!.dropAll();
});

describe('guessing two-factor codes at account operations', () => {
  let ctx: TestApp;
  let clock: ManualClock;
  const start = async (env: Record<string, string> = {}) => {
    clock = new ManualClock(Date.UTC(2026, 3, 1, 9));
    ctx = await startTestApp(await sqlite!.createDatabaseUrl(), {
      clock,
      env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0', ...env },
    });
  };
  afterEach(() => ctx.close());

  const post = (url: string, cookie: string, payload: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url, payload, headers: { cookie } });
  const events = async (userId: number) => (await ctx.services.store.audit.list({ limit: 200 })).filter((event) => event.userId === userId).reverse();
  const stored = async (email: string) => (await ctx.services.users.findByEmail(email))!;

  it('counts wrong codes of the three operations on one counter, locks at the fifth, mails the owner, and audits each', async () => {
    await start();
    const victim = await userWithAuthenticator(ctx, clock, { email: `victim-${process.pid}-1@example.com` });
    const { id } = await stored(victim.email);
    const guesses: [string, Record<string, unknown>, string][] = [
      ['/account/2fa/disable', { code: wrongCode(victim.sharedKey, clock.now()) }, 'disable-two-factor'],
      ['/account/2fa/disable', { code: 'AAAAA-BBBBB' }, 'disable-two-factor'],
      ['/account/2fa/recovery-codes', { code: wrongCode(victim.sharedKey, clock.now()) }, 'regenerate-recovery-codes'],
      ['/account/2fa/authenticator', { code: wrongCode(victim.sharedKey, clock.now()) }, 'replace-authenticator'],
    ];
    for (const [url, payload] of guesses) {
      const response = await post(url, victim.auth, payload);
      expect(response.statusCode, url).toBe(400);
      expect(json<{ errors: Record<string, unknown> }>(response).errors, url).toHaveProperty('code');
    }
    expect(await stored(victim.email)).toMatchObject({ accessFailedCount: 4, lockoutEnd: null });

    const locking = await post('/account/2fa/disable', victim.auth, { code: wrongCode(victim.sharedKey, clock.now()) });
    expect(locking.statusCode).toBe(400);
    expect((await stored(victim.email)).lockoutEnd).toBe(clock.now() + LOCKOUT_MS);

    const mail = await smtp.waitForMail(victim.email);
    expect(mail.subject).toMatch(/locked/i);
    const audit = await events(id);
    const failures = audit.filter((event) => event.type === 'signin.failed').map((event) => event.detail);
    expect(failures).toEqual([
      ...guesses.map(([, , operation]) => ({ reason: 'wrong-code', operation })),
      { reason: 'wrong-code', operation: 'disable-two-factor' },
    ]);
    expect(audit.filter((event) => event.type === 'lockout')).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain('AAAAA-BBBBB');
  });

  it('checks no code while locked: the right one gets 429 with Retry-After and changes nothing; the session goes on; after the lockout it works', async () => {
    // The session that waits out the lockout is still a recent sign-in afterwards.
    await start({ REAUTH_MINUTES: '30' });
    const victim = await userWithAuthenticator(ctx, clock, { email: `victim-${process.pid}-2@example.com` });
    for (let guess = 0; guess < 5; guess++) {
      expect((await post('/account/2fa/disable', victim.auth, { code: wrongCode(victim.sharedKey, clock.now()) })).statusCode).toBe(400);
    }
    clock.advance(STEP_MS);
    const right = totpCode(victim.sharedKey, 0, clock.now());
    for (const [url, payload] of [
      ['/account/2fa/disable', { code: right }],
      ['/account/2fa/disable', { code: victim.recoveryCodes[0] }],
      ['/account/2fa/recovery-codes', { code: right }],
      ['/account/2fa/authenticator', { code: right }],
    ] as const) {
      const refused = await post(url, victim.auth, payload);
      expect(refused.statusCode, url).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(json(refused)).toMatchObject({ status: 429, code: 'GH_LOCKED_OUT' });
      expect(Number(refused.headers['retry-after'])).toBe(LOCKOUT_MS / 1000 - STEP_MS / 1000);
    }
    // Nothing was checked: two-factor is still on, and neither the code's step nor the recovery code was used up.
    const profile = await ctx.app.inject({ url: '/account/profile', headers: { cookie: victim.auth } });
    expect(profile.statusCode).toBe(200);
    expect(json(profile)).toMatchObject({ twoFactorEnabled: true });
    expect(json(await ctx.app.inject({ url: '/account/2fa', headers: { cookie: victim.auth } }))).toMatchObject({ recoveryCodesLeft: 10 });

    clock.advance(LOCKOUT_MS);
    const regenerated = await post('/account/2fa/recovery-codes', victim.auth, { code: totpCode(victim.sharedKey, 0, clock.now()) });
    expect(regenerated.statusCode).toBe(200);
    expect(json<{ recoveryCodes: string[] }>(regenerated).recoveryCodes).toHaveLength(10);
  });

  it('shares the counter with the sign-in: wrong codes at the second step and at an account operation add up', async () => {
    await start();
    const victim = await userWithAuthenticator(ctx, clock, { email: `victim-${process.pid}-3@example.com` });
    const first = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: victim.email, password: victim.password } });
    const pending = first.headers['set-cookie']!.toString().match(/gh\.twofactor=[^;]+/)![0];
    for (let guess = 0; guess < 3; guess++) {
      expect((await post('/account/login/2fa', pending, { code: wrongCode(victim.sharedKey, clock.now()) })).statusCode).toBe(401);
    }
    for (let guess = 0; guess < 2; guess++) {
      expect((await post('/account/2fa/recovery-codes', victim.auth, { code: wrongCode(victim.sharedKey, clock.now()) })).statusCode).toBe(400);
    }
    expect((await stored(victim.email)).lockoutEnd).toBe(clock.now() + LOCKOUT_MS);
    const atSignIn = await post('/account/login/2fa', pending, { code: totpCode(victim.sharedKey, 1, clock.now()) });
    expect(json(atSignIn)).toMatchObject({ succeeded: false, isLockedOut: true });
  });

  it('counts the requests on the signed-in user\'s rate limit: over it, 429 GH_RATE_LIMITED with Retry-After, before any check', async () => {
    await start({ RATE_LIMIT_ACCOUNT_PER_MINUTE: '3', LOCKOUT_MAX_ATTEMPTS: '100' });
    const victim = await userWithAuthenticator(ctx, clock, { email: `victim-${process.pid}-4@example.com` });
    // The set-up's two requests counted already.
    expect((await post('/account/2fa/disable', victim.auth, { code: wrongCode(victim.sharedKey, clock.now()) })).statusCode).toBe(400);
    const limited = await post('/account/2fa/recovery-codes', victim.auth, { code: wrongCode(victim.sharedKey, clock.now()) });
    expect(limited.statusCode).toBe(429);
    expect(json(limited)).toMatchObject({ code: 'GH_RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await stored(victim.email)).accessFailedCount).toBe(1);
  });
});
