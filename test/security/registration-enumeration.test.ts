/**
 * Learning whether an address has an account by registering with it (docs/reference/http.md):
 * every answer to `POST /account/register` is the same whether the e-mail
 * is free, belongs to a confirmed account or to an unconfirmed one — the same status, headers and
 * body, as JSON and as a form post — and a taken `userName` is the same 409 whatever the e-mail
 * (the holder's own included), where it used to be 202 for a registered e-mail and 409 for a free
 * one. Only the mail differs, and it goes to the address's owner: a confirmation link for a new
 * account, a notice for a confirmed one, a fresh link for an unconfirmed one. (Time: every path
 * hashes the password once and sends its mail in the background; no wall-clock assertion here.)
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { antiforgeryCookieName } from '../../src/http/antiforgery.ts';
import { Antiforgery } from '../../src/security/crypto/antiforgery.ts';
import { testEngines } from '../helpers/databases.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PASSWORD = 'a long and uncommon passphrase';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await sqlite!.dropAll();
});

/** What a client sees of an answer, less the headers that differ on every request. */
function seen(response: LightMyRequestResponse) {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = response.headers;
  return { status: response.statusCode, headers, body: response.body };
}

describe('registration enumeration', () => {
  let ctx: TestApp;
  let n = 0;
  const address = () => `probe-${process.pid}-${++n}@example.com`;
  let confirmed: string;
  let unconfirmed: string;
  let holderName: string;
  beforeEach(async () => {
    ctx = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });
    holderName = `holder-${n + 1}`;
    confirmed = (await ctx.createUser({ email: address(), userName: holderName })).user.email;
    unconfirmed = address();
    expect((await register({ email: unconfirmed, password: PASSWORD })).statusCode).toBe(202);
    await smtp.waitForMail(unconfirmed);
  });
  afterEach(() => ctx.close());

  const register = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/account/register', payload });
  const mailsTo = (to: string) => smtp.messages.filter((mail) => mail.envelopeTo.includes(to));

  it('answers JSON the same for a free, a confirmed and an unconfirmed address, with or without a free user name', async () => {
    const free = address();
    const answers = [];
    for (const [email, userName] of [
      [free, undefined],
      [confirmed, undefined],
      [unconfirmed, undefined],
      [address(), `fresh-a-${n}`],
      [confirmed, `fresh-b-${n}`],
      [unconfirmed, `fresh-c-${n}`],
    ] as const) {
      answers.push(seen(await register({ email, password: PASSWORD, ...(userName ? { userName } : {}) })));
    }
    expect(answers[0]).toMatchObject({ status: 202, body: '{"status":"confirmation-sent"}' });
    for (const answer of answers) expect(answer).toEqual(answers[0]);

    // Only the owners' mail differs: a link for the new account, a notice, a fresh link.
    await expect.poll(() => mailsTo(free).length).toBe(1);
    expect(mailsTo(free)[0]!.subject).toBe('Confirm your e-mail address');
    await expect.poll(() => mailsTo(confirmed).length).toBe(2);
    expect(mailsTo(confirmed).map((mail) => mail.subject)).toEqual(['Someone tried to register with your e-mail address', 'Someone tried to register with your e-mail address']);
    await expect.poll(() => mailsTo(unconfirmed).length).toBe(3);
    expect(mailsTo(unconfirmed)[1]!.subject).toMatch(/registered again/);
    // No second account for a taken address, and the free user names asked for with one stay free.
    expect((await ctx.services.users.list()).filter((user) => [confirmed, unconfirmed].includes(user.email))).toHaveLength(2);
    expect((await register({ email: address(), password: PASSWORD, userName: `fresh-b-${n}` })).statusCode).toBe(202);
  });

  it('answers a taken user name with the same 409 whatever the e-mail, the holder\'s own included', async () => {
    const answers = [];
    for (const email of [address(), confirmed, unconfirmed]) answers.push(seen(await register({ email, password: PASSWORD, userName: holderName })));
    expect(answers[0]).toMatchObject({ status: 409 });
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ code: 'GH_CONFLICT', errors: { userName: expect.any(Array) } });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('answers the register form the same for a free, a confirmed and an unconfirmed address', async () => {
    const antiforgery = new Antiforgery(ctx.services.keyRing.secrets.antiforgery);
    const cookieToken = antiforgery.newCookieToken();
    const formPost = (email: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/account/register',
        headers: { cookie: `${antiforgeryCookieName(false)}=${cookieToken}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email, password: PASSWORD, userName: '', __RequestVerificationToken: antiforgery.requestToken(cookieToken, null) }).toString(),
      });
    const answers = [seen(await formPost(address())), seen(await formPost(confirmed)), seen(await formPost(unconfirmed))];
    expect(answers[0]).toMatchObject({ status: 303, headers: { location: '/account/register?status=sent' } });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });
});
