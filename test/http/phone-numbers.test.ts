/**
 * Phone numbers and SMS codes (docs/reference/configuration.md, docs/reference/http.md and docs/reference/membership.md): a number is confirmed by a code sent to
 * `SMS_WEBHOOK_URL` as JSON `{to, text}`, and a confirmed number receives sign-in codes. The
 * gateway is a local HTTP sink: the only stand-in, since no SMS gateway runs here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startSmsSink } from '../helpers/sms-sink.ts';
import { json, useTestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';

const engines = await testEngines();
const sink = await startSmsSink();
afterAll(() => sink.close());

describe.each(engines)('phone numbers on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { SMS_WEBHOOK_URL: sink.url } });
  const post = (url: string, cookie: string | undefined, payload: Record<string, unknown> = {}) =>
    ctx.app.inject({ method: 'POST', url, payload, ...(cookie ? { headers: { cookie } } : {}) });
  let numbers = 0;
  const newNumber = () => `+1415555${String(1000 + ++numbers + (engine.engine === 'postgres' ? 500 : 0)).padStart(4, '0')}`;

  async function signedIn() {
    const { user, password } = await ctx.createUser();
    const response = await post('/account/login', undefined, { email: user.email, password });
    return { user, password, auth: cookiePair(authSetCookie(response)!) };
  }

  it('texts a code that confirms the number, and refuses a number not in E.164', async () => {
    const { auth } = await signedIn();
    expect((await post('/account/phone', auth, { phoneNumber: '0415 555 0100' })).statusCode).toBe(400);
    const number = newNumber();
    expect((await post('/account/phone', auth, { phoneNumber: number })).statusCode).toBe(202);
    const message = sink.last(number)!;
    expect(sink.messages.at(-1)!.contentType).toMatch(/^application\/json/);
    const codes = message.text.match(/\b\d{6}\b/g)!;
    expect(codes).toHaveLength(1);
    expect((await post('/account/phone/confirm', auth, { code: codes[0] === '000000' ? '111111' : '000000' })).statusCode).toBe(400);
    expect((await post('/account/phone/confirm', auth, { code: codes[0] })).statusCode).toBe(204);
    expect((await post('/account/phone/confirm', auth, { code: codes[0] })).statusCode).toBe(400);
    const profile = json<{ phoneNumber: string; phoneConfirmed: boolean }>(await ctx.app.inject({ url: '/account/profile', headers: { cookie: auth } }));
    expect(profile).toMatchObject({ phoneNumber: number, phoneConfirmed: true });
  });

  it('sends a sign-in code by SMS to a confirmed number only, and takes it once', async () => {
    const { user, password, auth } = await signedIn();
    const setUp = json<{ sharedKey: string }>(await post('/account/2fa/authenticator', auth));
    const enabled = await post('/account/2fa/enable', auth, { code: totpCode(setUp.sharedKey) });
    const renewed = cookiePair(authSetCookie(enabled)!);
    const firstStep = async () => cookiePair(authSetCookie(await post('/account/login', undefined, { email: user.email, password }), 'gh.twofactor')!);

    expect((await post('/account/login/2fa/send', await firstStep(), { provider: 'Phone' })).statusCode).toBe(400);
    const number = newNumber();
    await post('/account/phone', renewed, { phoneNumber: number });
    const confirm = sink.last(number)!.text.match(/\d{6}/)![0];
    expect((await post('/account/phone/confirm', renewed, { code: confirm })).statusCode).toBe(204);

    const pending = await firstStep();
    expect((await post('/account/login/2fa/send', pending, { provider: 'Phone' })).statusCode).toBe(202);
    const code = sink.last(number)!.text.match(/\b\d{6}\b/)![0];
    expect(code).not.toBe(confirm);
    expect((await post('/account/login/2fa', pending, { provider: 'Email', code })).statusCode).toBe(401);
    expect((await post('/account/login/2fa/send', pending, { provider: 'Phone' })).statusCode).toBe(202);
    const fresh = sink.last(number)!.text.match(/\b\d{6}\b/)![0];
    expect((await post('/account/login/2fa', pending, { provider: 'Phone', code: fresh })).statusCode).toBe(200);
  });

  it('offers a code by text message at the second step only to a user with a confirmed number', async () => {
    const { user, password, auth } = await signedIn();
    const setUp = json<{ sharedKey: string }>(await post('/account/2fa/authenticator', auth));
    const renewed = cookiePair(authSetCookie(await post('/account/2fa/enable', auth, { code: totpCode(setUp.sharedKey) }))!);
    const offers = async () => {
      const pending = cookiePair(authSetCookie(await post('/account/login', undefined, { email: user.email, password }), 'gh.twofactor')!);
      const asJson = json<{ providers: string[] }>(await ctx.app.inject({ url: '/account/login/2fa', headers: { cookie: pending } }));
      const page = await ctx.app.inject({ url: '/account/login/2fa', headers: { cookie: pending, accept: 'text/html' } });
      return { providers: asJson.providers, page: page.body.includes('value="Phone"') };
    };

    expect(await offers()).toEqual({ providers: ['Authenticator', 'Email'], page: false });
    const number = newNumber();
    await post('/account/phone', renewed, { phoneNumber: number });
    expect(await offers()).toEqual({ providers: ['Authenticator', 'Email'], page: false });
    const confirm = sink.last(number)!.text.match(/\d{6}/)![0];
    expect((await post('/account/phone/confirm', renewed, { code: confirm })).statusCode).toBe(204);
    expect(await offers()).toEqual({ providers: ['Authenticator', 'Email', 'Phone'], page: true });
  });

  it('answers 502 GH_SMS_FAILED when the gateway refuses', async () => {
    const { auth } = await signedIn();
    sink.status = 503;
    try {
      const response = await post('/account/phone', auth, { phoneNumber: newNumber() });
      expect(response.statusCode).toBe(502);
      expect(json(response)).toMatchObject({ code: 'GH_SMS_FAILED' });
    } finally {
      sink.status = 200;
    }
  });
});
