/**
 * Taking over an account by registering again with its address before the owner confirms it
 * (docs/reference/http.md and docs/reference/membership.md): the owner registered and has not yet
 * clicked the link; a stranger registers with the same address and a password of their own. The
 * stranger's password is never stored — not at once, and not when the owner confirms with the
 * fresh link the second registration mailed — so it never signs in. The owner's mail says that
 * someone registered again and that the password was not changed; its one link confirms, older
 * links are void. Real mail over SMTP.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const OWNER_PASSWORD = 'the owner chose this passphrase';
const STRANGER_PASSWORD = 'a stranger chose this passphrase';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await sqlite!.dropAll();
});

describe('registration takeover of an unconfirmed account', () => {
  let ctx: TestApp;
  let n = 0;
  let email: string;
  beforeEach(async () => {
    ctx = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });
    email = `owner-${process.pid}-${++n}@example.com`;
    expect((await register(OWNER_PASSWORD)).statusCode).toBe(202);
    await mailNumber(1);
  });
  afterEach(() => ctx.close());

  const register = (password: string, extra: Record<string, unknown> = {}) =>
    ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email, password, ...extra } });
  const login = (password: string) => ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
  const token = (password: string) => ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email, password } });
  const mailNumber = async (count: number): Promise<ReceivedMail> => {
    await expect.poll(() => smtp.messages.filter((mail) => mail.envelopeTo.includes(email)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
    return smtp.messages.filter((mail) => mail.envelopeTo.includes(email))[count - 1]!;
  };
  const onlyLink = (mail: ReceivedMail) => {
    const urls = mail.text?.match(/https?:\/\/[^\s<>"]+/g) ?? [];
    expect(urls).toHaveLength(1);
    const url = new URL(urls[0]!);
    return `${url.pathname}${url.search}`;
  };
  const storedHash = async () => (await ctx.services.users.findByEmail(email))!.passwordHash;

  it('keeps the owner\'s password when a stranger registers again, before and after the owner confirms with the fresh link', async () => {
    const first = onlyLink(await mailNumber(1));
    const before = await storedHash();
    const again = await register(STRANGER_PASSWORD, { userName: `stranger-${n}` });
    expect(again.statusCode).toBe(202);
    expect(json(again)).toEqual({ status: 'confirmation-sent' });
    expect(await storedHash()).toBe(before);

    const mail = await mailNumber(2);
    expect(mail.text).toMatch(/registered again/);
    expect(mail.text).toMatch(/password of that account was not changed/);
    const fresh = onlyLink(mail);
    expect((await ctx.app.inject({ url: first })).statusCode).toBe(400);
    expect((await ctx.app.inject({ url: fresh })).statusCode).toBe(200);

    expect(await storedHash()).toBe(before);
    expect((await login(STRANGER_PASSWORD)).statusCode).toBe(401);
    expect((await token(STRANGER_PASSWORD)).statusCode).toBe(401);
    const owner = await login(OWNER_PASSWORD);
    expect(owner.statusCode).toBe(200);
    // Nor did the stranger's user name reach the account.
    const cookie = owner.headers['set-cookie']!.toString().match(/gh\.auth=[^;]+/)![0];
    expect(json(await ctx.app.inject({ url: '/account/profile', headers: { cookie } }))).toMatchObject({ email, userName: null, emailConfirmed: true });
  });

  it('keeps it under many concurrent registrations with other passwords', async () => {
    const before = await storedHash();
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => register(`${STRANGER_PASSWORD} ${i}`)));
    expect(answers.map((answer) => answer.statusCode)).toEqual([202, 202, 202, 202]);
    expect(await storedHash()).toBe(before);
    await mailNumber(5);
    // Only the newest link works, and it only confirms.
    const links = smtp.messages.filter((mail) => mail.envelopeTo.includes(email)).map(onlyLink);
    const working = [];
    for (const link of links) if ((await ctx.app.inject({ url: link })).statusCode === 200) working.push(link);
    expect(working).toHaveLength(1);
    // Four wrong passwords: one short of the lockout.
    for (let i = 0; i < 4; i++) expect((await login(`${STRANGER_PASSWORD} ${i}`)).statusCode).toBe(401);
    expect((await login(OWNER_PASSWORD)).statusCode).toBe(200);
  });
});
