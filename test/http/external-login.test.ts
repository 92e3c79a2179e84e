/**
 * External sign-in with OpenID Connect (docs/reference/http.md) against a real provider on loopback
 * (oidc-provider): the redirect carries PKCE S256, state and nonce; the callback signs in and the
 * profile shows the provider's e-mail; a tampered state, a replayed callback, a provider error
 * and an unreachable provider are refused without a session; linking follows the rule.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';

describe.each(engines)('external sign-in on $engine', (engine) => {
  let provider: TestProvider;
  let instance: TestApp;

  beforeAll(async () => {
    provider = await startTestProvider(`${PUBLIC_URL}/signin-acme`);
    instance = await startTestApp(await engine.createDatabaseUrl(), {
      env: {
        PUBLIC_URL,
        OIDC_ACME_ISSUER: provider.issuer,
        OIDC_ACME_CLIENT_ID: provider.clientId,
        OIDC_ACME_CLIENT_SECRET: provider.clientSecret,
        OIDC_ACME_TRUST_EMAIL: 'true',
        OIDC_GONE_ISSUER: 'http://127.0.0.1:9',
        OIDC_GONE_CLIENT_ID: 'x',
        OIDC_GONE_CLIENT_SECRET: 'y',
      },
    });
  });
  afterAll(async () => {
    await instance?.close();
    await provider?.close();
    await engine.dropAll();
  });

  const setCookie = (response: LightMyRequestResponse, name: string) => authSetCookie(response, name);

  /** Starts the flow, lets `account` sign in at the provider; the callback URL and the correlation cookie. */
  async function throughProvider(account: string, cookie?: string) {
    const start = await instance.app.inject({ url: '/account/external-login/acme?returnUrl=%2Faccount%2Fprofile', ...(cookie ? { headers: { cookie } } : {}) });
    expect(start.statusCode).toBe(302);
    const location = new URL(start.headers.location as string);
    const correlation = cookiePair(setCookie(start, 'gh.oidc')!);
    return { location, correlation, callback: await provider.authorize(location.href, account) };
  }
  const callback = (url: URL, cookie: string) => instance.app.inject({ url: `${url.pathname}${url.search}`, headers: { cookie } });

  it('redirects with PKCE S256, state and nonce, and signs a new user in with a verified e-mail', async () => {
    provider.accounts.set('new-person', { email: 'new.person@example.com', emailVerified: true, name: 'New Person' });
    const { location, correlation, callback: back } = await throughProvider('new-person');
    expect(location.origin).toBe(provider.issuer);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('nonce')).toBeTruthy();
    expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/signin-acme`);

    const done = await callback(back, correlation);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe('/account/profile');
    const auth = cookiePair(setCookie(done, 'gh.auth')!);
    const profile = json<{ email: string; emailConfirmed: boolean; logins: { provider: string }[] }>(await instance.app.inject({ url: '/account/profile', headers: { cookie: auth } }));
    expect(profile).toMatchObject({ email: 'new.person@example.com', emailConfirmed: true, logins: [{ provider: 'acme' }] });

    // The same callback again (a replayed code) signs nobody in.
    const replay = await callback(back, correlation);
    expect(replay.statusCode).toBe(400);
    expect(setCookie(replay, 'gh.auth')).toBeUndefined();
  });

  it('refuses a tampered state and a callback without the correlation cookie, with an audit event and no session', async () => {
    provider.accounts.set('tamper', { email: 'tamper@example.com', emailVerified: true });
    const { correlation, callback: back } = await throughProvider('tamper');
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'not-the-state');
    const refused = await callback(tampered, correlation);
    expect(refused.statusCode).toBe(400);
    expect(setCookie(refused, 'gh.auth')).toBeUndefined();
    const without = await instance.app.inject({ url: `${back.pathname}${back.search}` });
    expect(without.statusCode).toBe(400);
    expect(setCookie(without, 'gh.auth')).toBeUndefined();
    const events = await instance.services.store.audit.list({ limit: 10 });
    expect(events.filter((event) => event.type === 'external.refused').length).toBeGreaterThanOrEqual(2);
    expect(await instance.services.store.users.findByNormalizedEmail('tamper@example.com')).toBeNull();
  });

  it('refuses a provider error and an unreachable provider with a clear answer', async () => {
    const { correlation } = await throughProvider('someone');
    const denied = await instance.app.inject({ url: '/signin-acme?error=access_denied&state=x', headers: { cookie: correlation } });
    expect(denied.statusCode).toBe(400);
    expect(setCookie(denied, 'gh.auth')).toBeUndefined();
    const unreachable = await instance.app.inject({ url: '/account/external-login/gone' });
    expect(unreachable.statusCode).toBe(502);
    expect(json<{ code: string }>(unreachable).code).toBe('GH_EXTERNAL_PROVIDER_UNAVAILABLE');
    expect((await instance.app.inject({ url: '/account/external-login/unknown' })).statusCode).toBe(404);
  });

  it('links to an existing confirmed account only with a verified matching e-mail, never to an unconfirmed one', async () => {
    const confirmed = await instance.createUser({ email: 'linked@example.com' });
    provider.accounts.set('links', { email: 'linked@example.com', emailVerified: true });
    const flow = await throughProvider('links');
    const done = await callback(flow.callback, flow.correlation);
    expect(done.statusCode).toBe(302);
    expect(setCookie(done, 'gh.auth')).toBeDefined();
    expect(await instance.services.store.externalLogins.find('acme', 'links')).toMatchObject({ userId: confirmed.user.id });

    const unconfirmed = await instance.createUser({ email: 'unconfirmed@example.com', emailConfirmed: false });
    provider.accounts.set('grabber', { email: 'unconfirmed@example.com', emailVerified: true });
    const grab = await throughProvider('grabber');
    const refused = await callback(grab.callback, grab.correlation);
    expect(refused.statusCode).toBe(403);
    expect(setCookie(refused, 'gh.auth')).toBeUndefined();
    expect(await instance.services.store.externalLogins.find('acme', 'grabber')).toBeNull();
    expect((await instance.services.store.users.findById(unconfirmed.user.id))!.emailConfirmed).toBe(false);

    provider.accounts.set('unverified', { email: 'brand.new@example.com', emailVerified: false });
    const unverified = await throughProvider('unverified');
    expect((await callback(unverified.callback, unverified.correlation)).statusCode).toBe(403);
    expect(await instance.services.store.users.findByNormalizedEmail('brand.new@example.com')).toBeNull();
  });

  it('links and unlinks a provider from the signed-in profile, keeping the last way to sign in', async () => {
    const { user, password } = await instance.createUser({ email: 'owner@example.com' });
    const signIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    const auth = cookiePair(setCookie(signIn, 'gh.auth')!);
    const start = await instance.app.inject({ method: 'POST', url: '/account/logins/acme', headers: { cookie: auth } });
    expect(start.statusCode).toBe(302);
    provider.accounts.set('owner-at-acme', { email: 'another.address@example.com', emailVerified: false });
    const back = await provider.authorize(start.headers.location as string, 'owner-at-acme');
    const linked = await callback(back, `${auth}; ${cookiePair(setCookie(start, 'gh.oidc')!)}`);
    expect(linked.statusCode).toBe(303);
    expect(await instance.services.store.externalLogins.find('acme', 'owner-at-acme')).toMatchObject({ userId: user.id });
    const profile = json<{ logins: { provider: string }[] }>(await instance.app.inject({ url: '/account/profile', headers: { cookie: auth } }));
    expect(profile.logins).toEqual([{ provider: 'acme' }]);

    expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: auth } })).statusCode).toBe(204);
    expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: auth } })).statusCode).toBe(404);
    expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme' })).statusCode).toBe(401);

    // A user created by the provider has no password: its only login stays.
    provider.accounts.set('only-way', { email: 'only.way@example.com', emailVerified: true });
    const flow = await throughProvider('only-way');
    const created = cookiePair(setCookie(await callback(flow.callback, flow.correlation), 'gh.auth')!);
    expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: created } })).statusCode).toBe(409);
  });

  it('links a provider through the profile page’s “Link acme” form, posted as a browser posts it', async () => {
    const { user, password } = await instance.createUser({ email: 'form-linker@example.com' });
    const signIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    const auth = cookiePair(setCookie(signIn, 'gh.auth')!);
    const form = await pageForm(instance.app, '/account/profile', '/account/logins/acme', { cookie: auth });
    expect(Object.keys(form.fields)).toEqual(['__RequestVerificationToken']);
    // The post ends at the provider: a browser follows it only when the page's form-action allows that origin.
    const profile = await instance.app.inject({ url: '/account/profile', headers: { cookie: auth, accept: 'text/html' } });
    const formAction = /form-action ([^;]*)/.exec(profile.headers['content-security-policy'] as string)![1]!.split(' ');
    expect(formAction).toEqual(expect.arrayContaining(["'self'", new URL(provider.issuer).origin]));

    const start = await form.submit({ origin: PUBLIC_URL });
    expect(start.statusCode).toBe(302);
    expect(new URL(start.headers.location as string).origin).toBe(provider.issuer);
    provider.accounts.set('form-linker-at-acme', { email: 'form.linker.elsewhere@example.com', emailVerified: true });
    const back = await provider.authorize(start.headers.location as string, 'form-linker-at-acme');
    const linked = await callback(back, `${auth}; ${cookiePair(setCookie(start, 'gh.oidc')!)}`);
    expect(linked.statusCode).toBe(303);
    expect(await instance.services.store.externalLogins.find('acme', 'form-linker-at-acme')).toMatchObject({ userId: user.id });

    // Without the form's token the post changes nothing.
    const forged = await form.submit({ origin: PUBLIC_URL }, { __RequestVerificationToken: 'forged' });
    expect(forged.statusCode).toBe(400);
    expect(setCookie(forged, 'gh.oidc')).toBeUndefined();
  });

  it('comes back to a Unicode ReturnUrl percent-encoded, never a 500 (SEC-56)', async () => {
    provider.accounts.set('unicode-returner', { email: 'unicode.returner@example.com', emailVerified: true });
    const start = await instance.app.inject({ url: '/account/external-login/acme?ReturnUrl=%2F%E6%97%A5%E6%9C%AC%3Fq%3D%C3%A9' });
    expect(start.statusCode).toBe(302);
    const back = await provider.authorize(start.headers.location as string, 'unicode-returner');
    const done = await callback(back, cookiePair(setCookie(start, 'gh.oidc')!));
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe('/%E6%97%A5%E6%9C%AC?q=%C3%A9');
  });

  it('links only for the browser still signed in as the user who asked', async () => {
    const { user, password } = await instance.createUser({ email: 'asker@example.com' });
    const signIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    const auth = cookiePair(setCookie(signIn, 'gh.auth')!);
    const start = await instance.app.inject({ method: 'POST', url: '/account/logins/acme', headers: { cookie: auth } });
    provider.accounts.set('asker-at-acme', { email: 'asker.elsewhere@example.com', emailVerified: true });
    const back = await provider.authorize(start.headers.location as string, 'asker-at-acme');
    const withoutSession = await callback(back, cookiePair(setCookie(start, 'gh.oidc')!));
    expect(withoutSession.statusCode).toBe(403);
    expect(await instance.services.store.externalLogins.find('acme', 'asker-at-acme')).toBeNull();
  });

  it('asks for the second factor when the local user has it on', async () => {
    const { user } = await instance.createUser({ email: 'careful@example.com' });
    const key = instance.services.store.twoFactor;
    await key.setPendingKey(user.id, 'sealed');
    await key.enable(user.id, { sealedKey: 'sealed', step: 1, recoveryCodeHashes: [], now: Date.now() });
    await instance.services.store.externalLogins.add({ userId: user.id, provider: 'acme', subject: 'careful', createdAt: 1 });
    const flow = await throughProvider('careful');
    const done = await callback(flow.callback, flow.correlation);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toMatch(/^\/account\/login\/2fa/);
    expect(setCookie(done, 'gh.auth')).toBeUndefined();
    expect(setCookie(done, 'gh.twofactor')).toBeDefined();
  });
});
