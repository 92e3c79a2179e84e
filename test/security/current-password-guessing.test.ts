/**
 * Guessing the current password at `POST /account/password` with a session in hand (docs/reference/configuration.md, http.md, membership.md and security-events.md): a wrong
 * current password counts on
 * the account's one failure counter, with sign-in's wrong passwords; at LOCKOUT_MAX_ATTEMPTS the
 * account locks (mail to the owner, `lockout` event); each is a `signin.failed` event naming the
 * operation, without the password; while locked the current password is not checked (429
 * GH_LOCKED_OUT with Retry-After, the right one included) and the session goes on; a right
 * current password resets nothing (only a completed sign-in does); the signed-in user's rate
 * limit counts the requests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { antiforgeryCookieName } from '../../src/http/antiforgery.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { Antiforgery } from '../../src/security/crypto/antiforgery.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const LOCKOUT_MS = 5 * 60_000;
const NEW_PASSWORD = 'a brand new and uncommon passphrase';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await sqlite!.dropAll();
});

describe('guessing the current password at /account/password', () => {
  let ctx: TestApp;
  let clock: ManualClock;
  let mailboxes = 0;
  const start = async (env: Record<string, string> = {}) => {
    clock = new ManualClock(Date.UTC(2026, 3, 1, 9));
    ctx = await startTestApp(await sqlite!.createDatabaseUrl(), {
      clock,
      env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0', ...env },
    });
  };
  afterEach(() => ctx.close());

  /** A signed-in victim: the Cookie header of the session, and the password. */
  const victim = async () => {
    mailboxes += 1;
    const { user, password } = await ctx.createUser({ email: `owner-${process.pid}-${mailboxes}@example.com` });
    const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    return { user, password, cookie: cookiePair(authSetCookie(response)!) };
  };
  const change = (cookie: string, currentPassword: string, newPassword = NEW_PASSWORD) =>
    ctx.app.inject({ method: 'POST', url: '/account/password', payload: { currentPassword, newPassword }, headers: { cookie } });
  const login = (email: string, password: string) => ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
  const stored = async (id: number) => (await ctx.services.users.findById(id))!;

  it('counts each wrong current password, locks at the fifth with a mail and a lockout event, and audits each without the password', async () => {
    await start();
    const { user, cookie } = await victim();
    for (let guess = 1; guess <= 4; guess++) {
      const response = await change(cookie, `guess number ${guess}`);
      expect(response.statusCode).toBe(400);
      expect(json<{ errors: Record<string, unknown> }>(response).errors).toHaveProperty('currentPassword');
    }
    expect(await stored(user.id)).toMatchObject({ accessFailedCount: 4, lockoutEnd: null });
    expect((await change(cookie, 'guess number 5')).statusCode).toBe(400);
    expect((await stored(user.id)).lockoutEnd).toBe(clock.now() + LOCKOUT_MS);

    expect((await smtp.waitForMail(user.email)).subject).toMatch(/locked/i);
    const audit = (await ctx.services.store.audit.list({ limit: 200 })).filter((event) => event.userId === user.id);
    const failures = audit.filter((event) => event.type === 'signin.failed');
    expect(failures).toHaveLength(5);
    for (const event of failures) expect(event.detail).toEqual({ reason: 'wrong-password', operation: 'change-password' });
    expect(audit.filter((event) => event.type === 'lockout')).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain('guess number');
    expect(ctx.logs.join('')).not.toContain('guess number');
  });

  it('adds up with wrong passwords at sign-in', async () => {
    await start();
    const { user, cookie } = await victim();
    for (let guess = 0; guess < 3; guess++) expect((await login(user.email, 'not it at all')).statusCode).toBe(401);
    for (let guess = 0; guess < 2; guess++) expect((await change(cookie, 'not it either')).statusCode).toBe(400);
    expect((await stored(user.id)).lockoutEnd).toBe(clock.now() + LOCKOUT_MS);
  });

  it('checks nothing while locked: the right password gets 429 with Retry-After and changes nothing; the session goes on', async () => {
    await start();
    const { user, password, cookie } = await victim();
    for (let guess = 0; guess < 5; guess++) await change(cookie, 'wrong guess');
    clock.advance(60_000);
    const refused = await change(cookie, password);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(refused)).toMatchObject({ status: 429, code: 'GH_LOCKED_OUT' });
    expect(refused.headers['retry-after']).toBe(String((LOCKOUT_MS - 60_000) / 1000));
    // An automatic lockout ends no session (docs/reference/tokens.md).
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(200);

    clock.advance(LOCKOUT_MS);
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(401);
    expect((await change(cookie, password)).statusCode).toBe(204);
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('resets nothing on a right current password: only a completed sign-in does', async () => {
    await start();
    const { user, password, cookie } = await victim();
    for (let guess = 0; guess < 4; guess++) await change(cookie, 'wrong guess');
    const changed = await change(cookie, password);
    expect(changed.statusCode).toBe(204);
    expect((await stored(user.id)).accessFailedCount).toBe(4);
    const renewed = cookiePair(authSetCookie(changed)!);
    expect((await change(renewed, 'wrong again')).statusCode).toBe(400);
    expect((await stored(user.id)).lockoutEnd).toBe(clock.now() + LOCKOUT_MS);
  });

  it('answers the profile page\'s form while locked with the page, the reason and 429', async () => {
    await start();
    const { user, password, cookie } = await victim();
    for (let guess = 0; guess < 5; guess++) await change(cookie, 'wrong guess');
    const antiforgery = new Antiforgery(ctx.services.keyRing.secrets.antiforgery);
    const cookieToken = antiforgery.newCookieToken();
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/account/password',
      headers: {
        cookie: `${cookie}; ${antiforgeryCookieName(false)}=${cookieToken}`,
        'content-type': 'application/x-www-form-urlencoded',
        origin: ctx.services.config.publicUrl.origin,
      },
      payload: new URLSearchParams({ currentPassword: password, newPassword: NEW_PASSWORD, __RequestVerificationToken: antiforgery.requestToken(cookieToken, String(user.id)) }).toString(),
    });
    expect(form.statusCode).toBe(429);
    expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(form.headers['retry-after']).toBe(String(LOCKOUT_MS / 1000));
    expect(form.body).toContain('the account is locked for now');
  });

  it('counts the requests on the signed-in user\'s rate limit: over it, 429 GH_RATE_LIMITED before any check', async () => {
    await start({ RATE_LIMIT_ACCOUNT_PER_MINUTE: '2', LOCKOUT_MAX_ATTEMPTS: '100' });
    const { user, cookie } = await victim();
    expect((await change(cookie, 'wrong guess')).statusCode).toBe(400);
    expect((await change(cookie, 'wrong guess')).statusCode).toBe(400);
    const limited = await change(cookie, 'wrong guess');
    expect(limited.statusCode).toBe(429);
    expect(json(limited)).toMatchObject({ code: 'GH_RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await stored(user.id)).accessFailedCount).toBe(2);
  });
});
