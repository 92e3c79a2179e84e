/**
 * Registration, confirmation and password reset over HTTP and real SMTP (docs/reference/http.md and docs/reference/membership.md),
 * as a new user meets them: register → mail → confirm → sign in → sign out → sign in by user
 * name; the re-registration cases; the reset link that ends every session.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { json, startTestApp, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { readOutbox } from '../helpers/smtp.ts';

const engines = await testEngines();
const PASSWORD = 'a long and uncommon passphrase';
const OTHER_PASSWORD = 'another uncommon passphrase, longer';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer({ user: 'gatehouse', password: 'smtp-secret' });
});
afterAll(() => smtp.close());

let mailboxes = 0;
function newAddress(): string {
  mailboxes += 1;
  return `person${mailboxes}-${process.pid}@example.com`;
}

/** The `count`-th mail to `to` (1-based), waiting for it: mail leaves in the background. */
async function mailNumber(to: string, count: number, timeoutMs = 10_000): Promise<ReceivedMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const received = smtp.messages.filter((message) => message.envelopeTo.includes(to));
    if (received.length >= count) return received[count - 1]!;
    if (Date.now() > deadline) throw new Error(`mail number ${count} to ${to} did not arrive (have ${received.length})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function mailCount(to: string): number {
  return smtp.messages.filter((message) => message.envelopeTo.includes(to)).length;
}

/** The one URL of a mail, as a path and query to request. */
function onlyLink(mail: ReceivedMail): string {
  const urls = mail.text?.match(/https?:\/\/[^\s<>"]+/g) ?? [];
  expect(urls).toHaveLength(1);
  const url = new URL(urls[0]!);
  return `${url.pathname}${url.search}`;
}

describe.each(engines)('registration and password reset on $engine', (engine) => {
  let ctx: TestApp;
  beforeAll(async () => {
    ctx = await startTestApp(await engine.createDatabaseUrl(), {
      env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' },
    });
  });
  afterAll(async () => {
    await ctx.close();
    await engine.dropAll();
  });
  afterEach(() => expect(ctx.logs.join('')).not.toMatch(/code=[A-Za-z0-9_-]{20,}/));

  const register = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/account/register', payload });
  const login = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/account/login', payload });
  const profile = (cookie: string) => ctx.app.inject({ url: '/account/profile', headers: { cookie } });
  const cookieOf = (response: LightMyRequestResponse) => cookiePair(authSetCookie(response)!);

  it('register → mail → confirm → sign in → sign out (the old cookie is dead) → sign in by user name', async () => {
    const email = newAddress();
    const userName = `user-${mailboxes}`;
    const registered = await register({ email, password: PASSWORD, userName });
    expect(registered.statusCode).toBe(202);
    expect(json(registered)).toEqual({ status: 'confirmation-sent' });

    const mail = await mailNumber(email, 1);
    expect(mail.subject).toBe('Confirm your e-mail address');
    const link = onlyLink(mail);
    expect(link).toMatch(/^\/account\/confirm-email\?userId=\d+&code=[A-Za-z0-9_-]{43}$/);

    // Before confirmation: the right password says isNotAllowed, nothing more.
    const early = await login({ email, password: PASSWORD });
    expect(early.statusCode).toBe(401);
    expect(json(early)).toMatchObject({ succeeded: false, isNotAllowed: true });

    const confirmed = await ctx.app.inject({ url: link });
    expect(confirmed.statusCode).toBe(200);
    expect(json(confirmed)).toEqual({ confirmed: true });
    // The same link again (a reload, a mail scanner) still says confirmed.
    expect(json(await ctx.app.inject({ url: link }))).toEqual({ confirmed: true });

    const signedIn = await login({ email, password: PASSWORD });
    expect(signedIn.statusCode).toBe(200);
    const cookie = cookieOf(signedIn);
    expect(json(await profile(cookie))).toMatchObject({ email, userName, emailConfirmed: true });

    expect((await ctx.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie } })).statusCode).toBe(204);
    expect((await profile(cookie)).statusCode).toBe(401);

    const byUserName = await login({ userName, password: PASSWORD });
    expect(byUserName.statusCode).toBe(200);
    expect((await profile(cookieOf(byUserName))).statusCode).toBe(200);
  });

  it('re-registering an unconfirmed address: a fresh link saying so, older links void, the password unchanged', async () => {
    const email = newAddress();
    expect((await register({ email, password: PASSWORD })).statusCode).toBe(202);
    const first = onlyLink(await mailNumber(email, 1));
    const again = await register({ email, password: OTHER_PASSWORD });
    expect(again.statusCode).toBe(202);
    expect(json(again)).toEqual({ status: 'confirmation-sent' });
    const mail = await mailNumber(email, 2);
    expect(mail.subject).toMatch(/registered again/);
    expect(mail.text).toMatch(/registered again/);
    expect(mail.text).toMatch(/password of that account was not changed/);
    const second = onlyLink(mail);
    expect(second).not.toBe(first);

    const voided = await ctx.app.inject({ url: first });
    expect(voided.statusCode).toBe(400);
    expect(voided.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await ctx.app.inject({ url: second })).statusCode).toBe(200);

    // The first password is the account's; the one registered again with was never stored.
    expect((await login({ email, password: OTHER_PASSWORD })).statusCode).toBe(401);
    expect((await login({ email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('re-registering a confirmed address: the same 202, a notice without a link, the password kept', async () => {
    const { user, password } = await ctx.createUser({ email: newAddress() });
    const response = await register({ email: user.email, password: OTHER_PASSWORD });
    expect(response.statusCode).toBe(202);
    expect(json(response)).toEqual({ status: 'confirmation-sent' });
    const notice = await mailNumber(user.email, 1);
    expect(notice.text).not.toMatch(/https?:\/\//);
    expect((await login({ email: user.email, password })).statusCode).toBe(200);
    expect((await login({ email: user.email, password: OTHER_PASSWORD })).statusCode).toBe(401);
  });

  it('refuses a bad e-mail, a common or short password and a bad user name with 400, a taken user name with 409', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email', password: PASSWORD }, 'email'],
      [{ email: newAddress(), password: 'password123' }, 'password'],
      [{ email: newAddress(), password: 'short' }, 'password'],
      [{ email: newAddress(), password: PASSWORD, userName: 'a b' }, 'userName'],
      [{ email: newAddress(), password: PASSWORD, extra: true }, 'extra'],
    ];
    for (const [payload, field] of cases) {
      const response = await register(payload);
      expect(response.statusCode, field).toBe(400);
      expect(json<{ errors: Record<string, unknown> }>(response).errors, field).toHaveProperty(field);
    }
    const { user: holder } = await ctx.createUser({ email: newAddress(), userName: 'taken-name' });
    const { user: other } = await ctx.createUser({ email: newAddress() });
    const unconfirmed = newAddress();
    expect((await register({ email: unconfirmed, password: PASSWORD })).statusCode).toBe(202);
    // Whatever the e-mail: free, another account's (confirmed or not), or the holder's own.
    const answers = [];
    for (const email of [newAddress(), other.email, unconfirmed, holder.email]) {
      for (const userName of ['taken-name', 'TAKEN-NAME']) {
        const taken = await register({ email, password: PASSWORD, userName });
        expect(taken.statusCode, `${email} ${userName}`).toBe(409);
        expect(json<{ errors: Record<string, unknown> }>(taken).errors).toHaveProperty('userName');
        answers.push(taken.body);
      }
    }
    expect(new Set(answers).size).toBe(1);
  });

  it('refuses wrong and malformed confirmation codes with 400, and answers a browser with a page', async () => {
    const email = newAddress();
    await register({ email, password: PASSWORD });
    const link = onlyLink(await mailNumber(email, 1));
    const userId = new URL(link, 'http://x').searchParams.get('userId');
    for (const query of [`userId=${userId}&code=${'A'.repeat(43)}`, `userId=${userId}&code=short`, `userId=abc&code=${'A'.repeat(43)}`, '']) {
      expect((await ctx.app.inject({ url: `/account/confirm-email?${query}` })).statusCode, query).toBe(400);
    }
    const page = await ctx.app.inject({ url: link, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Your e-mail is confirmed');
  });

  it('forgot → reset link → new password: every session, refresh token and access token of the user ends; the link works once', async () => {
    const { user, password } = await ctx.createUser({ email: newAddress() });
    const cookie = cookieOf(await login({ email: user.email, password }));
    const tokens = json<{ accessToken: string; refreshToken: string }>(
      await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }),
    );

    const forgot = await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: user.email } });
    expect(forgot.statusCode).toBe(202);
    const link = onlyLink(await mailNumber(user.email, 1));
    const url = new URL(link, 'http://x');
    expect(url.pathname).toBe('/account/reset-password');
    expect(url.searchParams.get('email')).toBe(user.email);
    const code = url.searchParams.get('code')!;

    const weak = await ctx.app.inject({ method: 'POST', url: '/account/reset-password', payload: { email: user.email, code, newPassword: 'password1' } });
    expect(weak.statusCode).toBe(400);
    expect(json<{ errors: Record<string, unknown> }>(weak).errors).toHaveProperty('newPassword');

    const reset = await ctx.app.inject({ method: 'POST', url: '/account/reset-password', payload: { email: user.email, code, newPassword: OTHER_PASSWORD } });
    expect(reset.statusCode).toBe(204);
    expect((await profile(cookie)).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: tokens.refreshToken } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/me', headers: { authorization: `Bearer ${tokens.accessToken}` } })).statusCode).toBe(401);
    expect((await login({ email: user.email, password })).statusCode).toBe(401);
    expect((await login({ email: user.email, password: OTHER_PASSWORD })).statusCode).toBe(200);

    const again = await ctx.app.inject({ method: 'POST', url: '/account/reset-password', payload: { email: user.email, code, newPassword: 'yet another long passphrase' } });
    expect(again.statusCode).toBe(400);
    const events = await ctx.services.store.audit.list({ limit: 50 });
    expect(events.filter((event) => event.type === 'password.reset' && event.userId === user.id)).toHaveLength(1);
  });

  it('mails the owner once when the account locks after the fifth wrong password', async () => {
    const { user, password } = await ctx.createUser({ email: newAddress() });
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await login({ email: user.email, password: `wrong guess ${attempt}` })).statusCode).toBe(401);
    }
    const mail = await mailNumber(user.email, 1);
    expect(mail.subject).toMatch(/locked/i);
    expect(mail.text).not.toContain(password);
    // Locked: even the right password is refused, with the same generic answer.
    const locked = await login({ email: user.email, password });
    expect(locked.statusCode).toBe(401);
    expect(JSON.parse(locked.body)).not.toHaveProperty('isLockedOut');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailCount(user.email)).toBe(1);
  });

  it('forgot: 202 for an unknown address with no mail; a newer link voids the older one', async () => {
    const unknown = newAddress();
    expect((await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: unknown } })).statusCode).toBe(202);
    const { user } = await ctx.createUser({ email: newAddress() });
    await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: user.email } });
    const older = new URL(onlyLink(await mailNumber(user.email, 1)), 'http://x').searchParams.get('code')!;
    await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: user.email } });
    const newer = new URL(onlyLink(await mailNumber(user.email, 2)), 'http://x').searchParams.get('code')!;
    const reset = (code: string) =>
      ctx.app.inject({ method: 'POST', url: '/account/reset-password', payload: { email: user.email, code, newPassword: OTHER_PASSWORD } });
    expect((await reset(older)).statusCode).toBe(400);
    expect((await reset(newer)).statusCode).toBe(204);
    expect(mailCount(unknown)).toBe(0);
  });
});

describe.each(engines)('registration without required confirmation on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { REQUIRE_CONFIRMED_EMAIL: 'false' } });

  it('signs a new account in at once, still mails it a confirmation link, and gives a re-registration a notice', async () => {
    const email = newAddress();
    expect((await ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email, password: PASSWORD } })).statusCode).toBe(202);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password: PASSWORD } })).statusCode).toBe(200);
    await expect.poll(async () => (await readOutbox(ctx, email)).length).toBe(1);
    const [confirmation] = await readOutbox(ctx, email);
    expect(confirmation!.text).toContain('/account/confirm-email?userId=');

    // The account exists (unconfirmed): a second registration gets a notice and changes nothing.
    expect((await ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email, password: OTHER_PASSWORD } })).statusCode).toBe(202);
    await expect.poll(async () => (await readOutbox(ctx, email)).length).toBe(2);
    const [notice] = await readOutbox(ctx, email);
    expect(notice!.text).not.toMatch(/https?:\/\//);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password: PASSWORD } })).statusCode).toBe(200);
  });
});
