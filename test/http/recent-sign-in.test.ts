/**
 * Adding a way in needs a fresh proof (docs/reference/http.md#recent-sign-in, SEC-129): with only a
 * copied cookie or access token whose sign-in is older than REAUTH_MINUTES, a thief can neither
 * register a passkey, nor link a provider, nor set up or replace the authenticator, nor mint
 * recovery codes, nor add a phone number, nor turn two-factor off: each answers 403
 * GH_REAUTHENTICATION_REQUIRED and changes nothing. A refresh keeps the token's sign-in time, and
 * so does a session re-issued by a self-service change; signing in again (without signing out)
 * makes the same changes work. A password reset's mail lists the passkeys and provider logins, and
 * the reset removes them when asked. The clock is the app's own, moved by hand.
 */
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { readOutbox } from '../helpers/smtp.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { bearer, json, startTestApp, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator } from '../helpers/two-factor.ts';

const [sqlite] = await testEngines();
const ORIGIN = 'http://localhost:3000';
/** The default REAUTH_MINUTES, and a moment past it. */
const REAUTH_MS = 5 * 60_000;
const STALE_MS = REAUTH_MS + 1_000;

function expectReauthenticationRequired(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(403);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(json(response)).toMatchObject({
    type: 'urn:gatehouse:problem:reauthentication-required',
    title: 'Forbidden',
    status: 403,
    code: 'GH_REAUTHENTICATION_REQUIRED',
    detail: expect.stringMatching(/sign in again/),
    maxAgeSeconds: 300,
  });
}

describe.runIf(sqlite)('a recent sign-in for adding a way in', () => {
  const clock = new ManualClock(Date.now());
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN }, clock });

  const post = (url: string, headers: Record<string, string>, payload: object = {}) => ctx.app.inject({ method: 'POST', url, headers, payload });
  const passkeyOptions = (headers: Record<string, string>) => post('/account/passkeys/options', headers);
  const passkeysOf = async (userId: number) => ctx.services.store.passkeys.listForUser(userId);
  /** Signs in again with the password, on the browser that holds `cookie`, without signing out first. */
  const signInAgain = async (email: string, password: string, cookie: string) => {
    const response = await post('/account/login', { cookie }, { email, password });
    expect(response.statusCode).toBe(200);
    return cookiePair(authSetCookie(response)!);
  };

  it('refuses a passkey to a cookie whose sign-in is older than REAUTH_MINUTES, at both steps, until the user signs in again', async () => {
    const { user, password, cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    // The thief asks for options while the copied session is still recent, and answers them when it no longer is.
    clock.advance(REAUTH_MS - 60_000);
    const options = json<Parameters<SoftwareAuthenticator['register']>[0]>(await passkeyOptions({ cookie }));
    clock.advance(2 * 60_000);
    expectReauthenticationRequired(await post('/account/passkeys', { cookie }, { response: authenticator.register(options, { origin: ORIGIN }), name: 'Thief' }));
    expectReauthenticationRequired(await passkeyOptions({ cookie }));
    expect(await passkeysOf(user.id)).toEqual([]);

    // The session still works for everything else.
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(200);

    const fresh = await signInAgain(user.email, password, cookie);
    const again = json<Parameters<SoftwareAuthenticator['register']>[0]>(await passkeyOptions({ cookie: fresh }));
    const created = await post('/account/passkeys', { cookie: fresh }, { response: authenticator.register(again, { origin: ORIGIN }), name: 'Mine' });
    expect(created.statusCode).toBe(201);
    expect((await passkeysOf(user.id)).map(({ name }) => name)).toEqual(['Mine']);
  });

  it('counts a passkey sign-in as a fresh proof', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    const options = json<Parameters<SoftwareAuthenticator['register']>[0]>(await passkeyOptions({ cookie }));
    expect((await post('/account/passkeys', { cookie }, { response: authenticator.register(options, { origin: ORIGIN }) })).statusCode).toBe(201);
    clock.advance(STALE_MS);
    expectReauthenticationRequired(await passkeyOptions({ cookie }));
    const challenge = await post('/account/login/passkey/options', {});
    const challengeCookie = cookiePair(authSetCookie(challenge, 'gh.passkey')!);
    const signedIn = await post('/account/login/passkey', { cookie: `${cookie}; ${challengeCookie}` }, { response: authenticator.assert(json(challenge), { origin: ORIGIN }) });
    expect(json(signedIn)).toEqual({ succeeded: true });
    expect((await passkeyOptions({ cookie: cookiePair(authSetCookie(signedIn)!) })).statusCode).toBe(200);
    expect(await passkeysOf(user.id)).toHaveLength(1);
  });

  it('refuses a passkey to an access token whose sign-in is older than REAUTH_MINUTES, and a refresh keeps the sign-in time', async () => {
    const { user, password } = await ctx.createUser();
    const signedInAt = clock.now();
    const issued = json<{ accessToken: string; refreshToken: string }>(await post('/auth/token', {}, { email: user.email, password }));
    expect(decodeJwt(issued.accessToken).auth_time).toBe(Math.floor(signedInAt / 1000));
    expect((await passkeyOptions(bearer(issued.accessToken))).statusCode).toBe(200);

    clock.advance(STALE_MS);
    expectReauthenticationRequired(await passkeyOptions(bearer(issued.accessToken)));
    const refreshed = await post('/auth/refresh', {}, { refreshToken: issued.refreshToken });
    expect(refreshed.statusCode).toBe(200);
    const { accessToken } = json<{ accessToken: string }>(refreshed);
    expect(decodeJwt(accessToken).auth_time).toBe(Math.floor(signedInAt / 1000));
    expect(decodeJwt(accessToken).iat).toBeGreaterThan(decodeJwt(accessToken).auth_time as number);
    expectReauthenticationRequired(await passkeyOptions(bearer(accessToken)));

    const again = json<{ accessToken: string }>(await post('/auth/token', {}, { email: user.email, password }));
    expect((await passkeyOptions(bearer(again.accessToken))).statusCode).toBe(200);
  });

  it('keeps the sign-in time when a self-service change re-issues the session: a password change renews nothing', async () => {
    const { user, password, cookie } = await signInWithCookie(ctx);
    clock.advance(STALE_MS);
    const changed = await post('/account/password', { cookie }, { currentPassword: password, newPassword: 'a brand new passphrase 7' });
    expect(changed.statusCode).toBe(204);
    const reissued = cookiePair(authSetCookie(changed)!);
    expectReauthenticationRequired(await passkeyOptions({ cookie: reissued }));
    const [session] = json<{ createdAt: string }[]>(await ctx.app.inject({ url: '/account/sessions', headers: { cookie: reissued } }));
    expect(Date.parse(session!.createdAt)).toBe(clock.now() - STALE_MS);
    expect(await passkeysOf(user.id)).toEqual([]);
  });

  it('refuses to set up an authenticator, the first one included, on a stale session', async () => {
    const { user, password, cookie } = await signInWithCookie(ctx);
    clock.advance(STALE_MS);
    expectReauthenticationRequired(await post('/account/2fa/authenticator', { cookie }));
    const fresh = await signInAgain(user.email, password, cookie);
    expect((await post('/account/2fa/authenticator', { cookie: fresh })).statusCode).toBe(200);
  });

  it('refuses to turn two-factor off, replace the authenticator or mint recovery codes on a stale session, even with a right code', async () => {
    const owner = await userWithAuthenticator(ctx, clock);
    clock.advance(STALE_MS);
    const code = totpCode(owner.sharedKey, 0, clock.now());
    expectReauthenticationRequired(await post('/account/2fa/disable', { cookie: owner.auth }, { code }));
    expectReauthenticationRequired(await post('/account/2fa/authenticator', { cookie: owner.auth }, { code }));
    expectReauthenticationRequired(await post('/account/2fa/recovery-codes', { cookie: owner.auth }, { code }));
    const user = (await ctx.services.store.users.findByNormalizedEmail(owner.email))!;
    expect(user.twoFactorEnabled).toBe(true);
    // No guess was spent: the refused requests never reached the code check.
    expect(user.accessFailedCount).toBe(0);

    // Both factors again, on the same browser: then two-factor goes off.
    const first = await post('/account/login', { cookie: owner.auth }, { email: owner.email, password: owner.password });
    expect(json(first)).toMatchObject({ requiresTwoFactor: true });
    const pending = cookiePair(authSetCookie(first, 'gh.twofactor')!);
    const second = await post('/account/login/2fa', { cookie: pending }, { code });
    expect(second.statusCode).toBe(200);
    const fresh = cookiePair(authSetCookie(second)!);
    clock.advance(30_000);
    const off = await post('/account/2fa/disable', { cookie: fresh }, { code: totpCode(owner.sharedKey, 0, clock.now()) });
    expect(off.statusCode).toBe(204);
  });

  it('refuses a phone number for sign-in codes on a stale session', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    clock.advance(STALE_MS);
    expectReauthenticationRequired(await post('/account/phone', { cookie }, { phoneNumber: '+14155550123' }));
    expect((await ctx.services.store.users.findById(user.id))!.phoneNumber).toBeNull();
  });

  it('answers the set-up page’s form with the page and the reason, status 403', async () => {
    const owner = await userWithAuthenticator(ctx, clock);
    clock.advance(STALE_MS);
    const form = await pageForm(ctx.app, '/account/2fa', '/account/2fa/disable', { cookie: owner.auth });
    const refused = await form.submit({ origin: ORIGIN }, { code: totpCode(owner.sharedKey, 0, clock.now()) });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('text/html');
    expect(refused.body).toContain('sign in again');
  });
});

describe.runIf(sqlite)('a recent sign-in for linking a provider', () => {
  const clock = new ManualClock(Date.now());
  const PUBLIC_URL = 'http://gatehouse.test';
  let provider: TestProvider;
  let instance: TestApp;

  beforeAll(async () => {
    provider = await startTestProvider(`${PUBLIC_URL}/signin-acme`);
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), {
      clock,
      env: { PUBLIC_URL, OIDC_ACME_ISSUER: provider.issuer, OIDC_ACME_CLIENT_ID: provider.clientId, OIDC_ACME_CLIENT_SECRET: provider.clientSecret },
    });
  });
  afterAll(async () => {
    await instance?.close();
    await provider?.close();
    await sqlite!.dropAll();
  });

  it('refuses to start linking on a stale session (JSON: 403; the profile’s form: to the login page and back), and starts once signed in again', async () => {
    const { user, password, cookie } = await signInWithCookie(instance);
    clock.advance(STALE_MS);
    const refused = await instance.app.inject({ method: 'POST', url: '/account/logins/acme', headers: { cookie } });
    expectReauthenticationRequired(refused);
    expect(authSetCookie(refused, 'gh.oidc')).toBeUndefined();

    const form = await pageForm(instance.app, '/account/profile', '/account/logins/acme', { cookie });
    const sent = await form.submit({ origin: PUBLIC_URL });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe('/account/login?ReturnUrl=%2Faccount%2Fprofile');
    expect(authSetCookie(sent, 'gh.oidc')).toBeUndefined();

    const again = await instance.app.inject({ method: 'POST', url: '/account/login', headers: { cookie }, payload: { email: user.email, password } });
    const fresh = cookiePair(authSetCookie(again)!);
    const started = await instance.app.inject({ method: 'POST', url: '/account/logins/acme', headers: { cookie: fresh } });
    expect(started.statusCode, instance.logs.filter((line) => line.includes('external')).join('\n')).toBe(302);
    expect(new URL(started.headers.location as string).origin).toBe(provider.issuer);
  });
});

describe.runIf(sqlite)('a password reset after a theft', () => {
  const clock = new ManualClock(Date.now());
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN }, clock });

  /** A user with a passkey named `passkeyName` and a link to `acme`; the reset link's code from the mail, and the mail. */
  const victim = async (passkeyName: string) => {
    const { user, cookie } = await signInWithCookie(ctx);
    const options = await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie } });
    const authenticator = new SoftwareAuthenticator();
    const response = authenticator.register(json(options), { origin: ORIGIN });
    const added = await ctx.app.inject({ method: 'POST', url: '/account/passkeys', headers: { cookie }, payload: { response, name: passkeyName } });
    expect(added.statusCode).toBe(201);
    await ctx.services.store.externalLogins.add({ userId: user.id, provider: 'acme', subject: `acme-${user.id}`, createdAt: clock.now() });
    const forgot = await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: user.email } });
    expect(forgot.statusCode).toBe(202);
    let mail: { subject: string | null; text: string } | undefined;
    await expect.poll(async () => (mail = (await readOutbox(ctx, user.email)).find((message) => message.subject === 'Reset your password'))).toBeDefined();
    const code = new URL(/https?:\/\/\S+/.exec(mail!.text)![0]).searchParams.get('code')!;
    return { user, mail: mail!, code };
  };
  const reset = (email: string, code: string, extra: object = {}) =>
    ctx.app.inject({ method: 'POST', url: '/account/reset-password', payload: { email, code, newPassword: 'the owner takes it back 9', ...extra } });

  it('lists the passkeys and provider logins in the reset mail, with exactly one URL', async () => {
    const { mail } = await victim('Thief https://evil.example/x');
    expect(mail.text).toContain('Besides the password, these sign in to your account:');
    expect(mail.text).toMatch(/the passkey "Thief https {3}evil example x", added \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(mail.text).toContain('signing in with acme');
    expect(mail.text.match(/https?:\/\//g)).toHaveLength(1);
  });

  it('removes every passkey and external login when the reset asks, in the same step', async () => {
    const { user, code } = await victim('Thief');
    expect((await reset(user.email, code, { removePasskeys: true, removeExternalLogins: true })).statusCode).toBe(204);
    expect(await ctx.services.store.passkeys.listForUser(user.id)).toEqual([]);
    expect(await ctx.services.store.externalLogins.listForUser(user.id)).toEqual([]);
    const [event] = (await ctx.services.store.audit.list({ limit: 50 })).filter((entry) => entry.type === 'password.reset');
    expect(event).toMatchObject({ userId: user.id, detail: { removedPasskeys: true, removedExternalLogins: true } });
  });

  it('keeps them when the reset does not ask, and removes nothing for a wrong code', async () => {
    const { user, code } = await victim('Mine');
    expect((await reset(user.email, 'not-the-code', { removePasskeys: true, removeExternalLogins: true })).statusCode).toBe(400);
    expect(await ctx.services.store.passkeys.listForUser(user.id)).toHaveLength(1);
    expect((await reset(user.email, code)).statusCode).toBe(204);
    expect(await ctx.services.store.passkeys.listForUser(user.id)).toHaveLength(1);
    expect(await ctx.services.store.externalLogins.listForUser(user.id)).toHaveLength(1);
  });

  it('offers the removal on the reset page, and the form’s checkboxes remove them', async () => {
    const { user, code } = await victim('Thief');
    const url = `/account/reset-password?email=${encodeURIComponent(user.email)}&code=${code}`;
    const form = await pageForm(ctx.app, url, '/account/reset-password');
    const sent = await form.submit({ origin: ORIGIN }, { newPassword: 'the owner takes it back 9', removePasskeys: 'true', removeExternalLogins: 'true' });
    expect(sent.statusCode).toBe(303);
    expect(await ctx.services.store.passkeys.listForUser(user.id)).toEqual([]);
    expect(await ctx.services.store.externalLogins.listForUser(user.id)).toEqual([]);
  });
});
