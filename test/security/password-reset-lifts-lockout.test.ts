/**
 * Lockout as a denial of service (docs/reference/membership.md): anyone can lock an
 * account by guessing, so the owner's way out is the reset link: a completed password reset lifts
 * an automatic lockout at once, and the owner signs in with the new password while the lockout
 * would still run. It does not lift an admin lock, which is another decision. Real mail: the
 * lockout notice and the reset link arrive over SMTP.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const NEW_PASSWORD = 'a fresh and uncommon passphrase';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await sqlite!.dropAll();
});

describe('a password reset against a lockout', () => {
  let ctx: TestApp;
  let clock: ManualClock;
  let mailboxes = 0;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 3, 1, 9));
    ctx = await startTestApp(await sqlite!.createDatabaseUrl(), { clock, env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });
  });
  afterEach(() => ctx.close());

  const login = (email: string, password: string) => ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
  const owner = () => ctx.createUser({ email: `locked-${process.pid}-${++mailboxes}@example.com` });
  /** The mail to `to` whose subject matches, waiting for it. */
  const mailTo = async (to: string, subject: RegExp): Promise<ReceivedMail> => {
    await expect.poll(() => smtp.messages.some((mail) => mail.envelopeTo.includes(to) && subject.test(mail.subject ?? '')), { timeout: 10_000 }).toBe(true);
    return smtp.messages.find((mail) => mail.envelopeTo.includes(to) && subject.test(mail.subject ?? ''))!;
  };
  const resetWithMailedLink = async (email: string) => {
    expect((await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email } })).statusCode).toBe(202);
    const link = new URL((await mailTo(email, /reset/i)).text!.match(/https?:\/\/\S+/)![0]);
    return ctx.app.inject({
      method: 'POST',
      url: '/account/reset-password',
      payload: { email: link.searchParams.get('email'), code: link.searchParams.get('code'), newPassword: NEW_PASSWORD },
    });
  };

  it('lifts the lockout someone else caused: the owner signs in with the new password at once', async () => {
    const { user, password } = await owner();
    for (let guess = 0; guess < 5; guess++) expect((await login(user.email, 'an attacker guess')).statusCode).toBe(401);
    await mailTo(user.email, /locked/i);
    expect((await login(user.email, password)).statusCode).toBe(401);

    clock.advance(60_000);
    expect((await resetWithMailedLink(user.email)).statusCode).toBe(204);
    expect((await ctx.services.users.findById(user.id))!.lockoutEnd).toBeNull();
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('leaves an admin lock in place', async () => {
    const { user } = await owner();
    const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
    expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers: bearer(await ctx.tokenFor(admin)) })).statusCode).toBe(204);
    expect((await resetWithMailedLink(user.email)).statusCode).toBe(204);
    expect((await ctx.services.users.findById(user.id))!.lockedByAdmin).toBe(true);
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(401);
  });
});
