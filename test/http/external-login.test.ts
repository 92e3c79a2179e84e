/**
 * External sign-in with OpenID Connect (docs/reference/http.md) against a real provider on loopback
 * (oidc-provider): the redirect carries PKCE S256, state and nonce; the callback signs in and the
 * profile shows the provider's e-mail; a tampered state, a replayed callback, a provider error
 * and an unreachable provider are refused without a session; linking follows the rule, happens
 * only once the sign-in completes (after the lockout check and the second factor), and mails the
 * owner; unlinking keeps the last way in under concurrency and ends the sessions the provider opened.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { readOutbox } from '../helpers/smtp.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator, wrongCode } from '../helpers/two-factor.ts';

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

  it("remembers the language the callback's browser states as the user's, for their mails", async () => {
    provider.accounts.set('german-person', { email: 'german.person@example.com', emailVerified: true, name: 'German Person' });
    const { correlation, callback: back } = await throughProvider('german-person');
    const done = await instance.app.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: correlation, 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(done.statusCode).toBe(302);
    expect((await instance.app.gatehouse.users.findByEmail('german.person@example.com'))?.language).toBe('de');
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
    expect(done.headers['cache-control']).toBe('no-store');
    expect(setCookie(done, 'gh.auth')).toBeUndefined();
    expect(setCookie(done, 'gh.twofactor')).toBeDefined();
  });

  /** The callback of a sign-in at the provider as `account`, who asserts `email` verified. */
  async function signInAs(account: string, email: string, cookie?: string) {
    provider.accounts.set(account, { email, emailVerified: true });
    const flow = await throughProvider(account, cookie);
    return callback(flow.callback, cookie === undefined ? flow.correlation : `${cookie}; ${flow.correlation}`);
  }
  const auditTypes = async () => (await instance.services.store.audit.list({ limit: 500 })).map((event) => event);
  const refusalsOf = async (reason: string) =>
    (await auditTypes()).filter((event) => event.type === 'external.refused' && (event.detail as { reason?: string } | null)?.reason === reason).length;
  const noticesTo = async (email: string, subject: RegExp) => (await readOutbox(instance, email)).filter((mail) => subject.test(mail.subject ?? ''));
  const profileStatus = async (cookie: string) => (await instance.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode;

  // Each look-alike folds into the account's address under NFKC: it only resembles it.
  it.each([
    ['fullwidth letters', 'victim-fullwidth@example.com', '\uFF56ictim-fullwidth@example.com'],
    ['mathematical letters', 'victim-math@example.com', '\u{1D42F}ictim-math@example.com'],
    ['a ligature', 'fish-ligature@example.com', '\uFB01sh-ligature@example.com'],
    ['the Kelvin sign', 'kate-kelvin@example.com', '\u212Aate-kelvin@example.com'],
  ])('never links by e-mail an address written with %s, nor creates an account for it', async (_variant, stored, lookalike) => {
    const { user } = await instance.createUser({ email: stored });
    const before = await refusalsOf('email-not-exact');
    const subject = `lookalike-${stored}`;
    const refused = await signInAs(subject, lookalike);
    expect(refused.statusCode).toBe(403);
    expect(json<{ code: string }>(refused).code).toBe('GH_FORBIDDEN');
    expect(setCookie(refused, 'gh.auth')).toBeUndefined();
    expect(await instance.services.store.externalLogins.find('acme', subject)).toBeNull();
    expect(await instance.services.store.users.findByNormalizedEmail(stored)).toMatchObject({ id: user.id, email: stored });
    expect(await refusalsOf('email-not-exact')).toBe(before + 1);
    expect(await noticesTo(stored, /was linked/)).toEqual([]);
  });

  it('answers a look-alike with the refusal page to a browser', async () => {
    await instance.createUser({ email: 'page-victim@example.com' });
    provider.accounts.set('page-lookalike', { email: '\uFF50age-victim@example.com', emailVerified: true });
    const flow = await throughProvider('page-lookalike');
    const refused = await instance.app.inject({ url: `${flow.callback.pathname}${flow.callback.search}`, headers: { cookie: flow.correlation, accept: 'text/html' } });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(await instance.services.store.externalLogins.find('acme', 'page-lookalike')).toBeNull();
  });

  it('writes exactly one external.refused for one refused linking', async () => {
    await instance.createUser({ email: 'refused-once@example.com', emailConfirmed: false });
    const before = await refusalsOf('email-taken');
    expect((await signInAs('refused-once', 'refused-once@example.com')).statusCode).toBe(403);
    expect(await refusalsOf('email-taken')).toBe(before + 1);
  });

  it('links by e-mail and mails the owner a notice at the stored address', async () => {
    const { user } = await instance.createUser({ email: 'Notice.Owner@example.com' });
    const done = await signInAs('notice-owner', 'notice.owner@example.com');
    expect(done.statusCode).toBe(302);
    expect(await instance.services.store.externalLogins.find('acme', 'notice-owner')).toMatchObject({ userId: user.id });
    const [notice] = await noticesTo('Notice.Owner@example.com', /acme was linked/);
    expect(notice!.text).toContain('confirmed your e-mail address');
    expect(notice!.text).toContain('unlink acme');
  });

  it('gives a locked account no link by e-mail and no notice', async () => {
    const { user } = await instance.createUser({ email: 'locked-owner@example.com' });
    await instance.services.users.lock(user.id);
    const refused = await signInAs('locked-owner', 'locked-owner@example.com');
    expect(refused.statusCode).toBe(403);
    expect(setCookie(refused, 'gh.auth')).toBeUndefined();
    expect(await instance.services.store.externalLogins.find('acme', 'locked-owner')).toBeNull();
    expect(await noticesTo('locked-owner@example.com', /was linked/)).toEqual([]);
    expect(await refusalsOf('locked-out')).toBeGreaterThanOrEqual(1);
  });

  /** Completes the second step of the pending sign-in in `pending` one way; the response. */
  const secondSteps = {
    TOTP: (pending: string, owner: { sharedKey: string }) =>
      instance.app.inject({ method: 'POST', url: '/account/login/2fa', headers: { cookie: pending }, payload: { code: totpCode(owner.sharedKey, 1) } }),
    'an e-mail code': async (pending: string, owner: { email: string }) => {
      const sent = await instance.app.inject({ method: 'POST', url: '/account/login/2fa/send', headers: { cookie: pending }, payload: { provider: 'Email' } });
      expect(sent.statusCode).toBe(202);
      const [mail] = await noticesTo(owner.email, /sign-in code/);
      const code = /\b\d{6}\b/.exec(mail!.text)![0];
      return instance.app.inject({ method: 'POST', url: '/account/login/2fa', headers: { cookie: pending }, payload: { code, provider: 'Email' } });
    },
    'a recovery code': (pending: string, owner: { recoveryCodes: string[] }) =>
      instance.app.inject({ method: 'POST', url: '/account/login/recovery', headers: { cookie: pending }, payload: { recoveryCode: owner.recoveryCodes[0] } }),
  };

  it.each(Object.keys(secondSteps) as (keyof typeof secondSteps)[])(
    'links by e-mail a user with two-factor on only when the second step succeeds with %s',
    async (way) => {
      const email = `second-step-${way.replace(/\W/g, '-')}@example.com`;
      const owner = await userWithAuthenticator(instance, systemClock, { email });
      const subject = `second-step-${way}`;
      const first = await signInAs(subject, email);
      expect(first.statusCode).toBe(302);
      expect(first.headers.location).toMatch(/^\/account\/login\/2fa/);
      expect(first.headers['cache-control']).toBe('no-store');
      const pending = cookiePair(setCookie(first, 'gh.twofactor')!);
      // The first step alone, and a wrong code, link nothing.
      expect(await instance.services.store.externalLogins.find('acme', subject)).toBeNull();
      const wrong = await instance.app.inject({ method: 'POST', url: '/account/login/2fa', headers: { cookie: pending }, payload: { code: wrongCode(owner.sharedKey, Date.now()) } });
      expect(wrong.statusCode).toBe(401);
      expect(await instance.services.store.externalLogins.find('acme', subject)).toBeNull();
      expect(await noticesTo(email, /was linked/)).toEqual([]);

      const done = await secondSteps[way](pending, owner as never);
      expect(done.statusCode).toBe(200);
      const auth = cookiePair(setCookie(done, 'gh.auth')!);
      const login = await instance.services.store.externalLogins.find('acme', subject);
      expect(login).not.toBeNull();
      expect((await instance.services.store.users.findById(login!.userId))!.email).toBe(email);
      expect(await noticesTo(email, /acme was linked/)).toHaveLength(1);

      // The session came from acme: unlinking acme from the session two-factor opened ends it.
      expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: owner.auth } })).statusCode).toBe(204);
      expect(await profileStatus(auth)).toBe(401);
      expect(await profileStatus(owner.auth)).toBe(200);
    },
  );

  it('links nothing when the second step is never completed', async () => {
    const email = 'never-completes@example.com';
    await userWithAuthenticator(instance, systemClock, { email });
    const first = await signInAs('never-completes', email);
    expect(setCookie(first, 'gh.twofactor')).toBeDefined();
    expect(await instance.services.store.externalLogins.find('acme', 'never-completes')).toBeNull();
    expect(await noticesTo(email, /was linked/)).toEqual([]);
  });

  it('mails the owner when a provider is linked from the profile and when it is unlinked', async () => {
    const { user, password } = await instance.createUser({ email: 'profile-notices@example.com' });
    const auth = cookiePair(setCookie(await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } }), 'gh.auth')!);
    const start = await instance.app.inject({ method: 'POST', url: '/account/logins/acme', headers: { cookie: auth } });
    provider.accounts.set('profile-notices', { email: 'elsewhere@example.com', emailVerified: false });
    const back = await provider.authorize(start.headers.location as string, 'profile-notices');
    const linked = await callback(back, `${auth}; ${cookiePair(setCookie(start, 'gh.oidc')!)}`);
    expect(linked.statusCode).toBe(303);
    expect(linked.headers['cache-control']).toBe('no-store');
    const [linkNotice] = await noticesTo(user.email, /acme was linked/);
    expect(linkNotice!.text).toContain('from your profile');
    expect(await readOutbox(instance, 'elsewhere@example.com')).toEqual([]);

    expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: auth } })).statusCode).toBe(204);
    const [unlinkNotice] = await noticesTo(user.email, /acme was unlinked/);
    expect(unlinkNotice!.text).toContain('can no longer sign in with it');
  });

  it('unlinking writes external.unlinked and ends the sessions acme opened, the asking one too, whose cookie it clears', async () => {
    const { user, password } = await instance.createUser({ email: 'cuts-acme@example.com' });
    const byPassword = cookiePair(setCookie(await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } }), 'gh.auth')!);
    const first = await signInAs('cuts-acme', user.email);
    const byAcme = cookiePair(setCookie(first, 'gh.auth')!);
    const again = cookiePair(setCookie(await signInAs('cuts-acme', user.email), 'gh.auth')!);
    expect(await profileStatus(byAcme)).toBe(200);

    const unlinked = await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: byAcme } });
    expect(unlinked.statusCode).toBe(204);
    expect(unlinked.headers['cache-control']).toBe('no-store');
    expect(setCookie(unlinked, 'gh.auth')).toMatch(/^gh\.auth=;.*Max-Age=0/i);
    expect(await profileStatus(byAcme)).toBe(401);
    expect(await profileStatus(again)).toBe(401);
    expect(await profileStatus(byPassword)).toBe(200);
    const [event] = (await auditTypes()).filter((entry) => entry.type === 'external.unlinked' && entry.userId === user.id);
    expect(event!.detail).toEqual({ provider: 'acme', sessionsEnded: 2 });
  });

  it('keeps how a session was opened when a password change re-issues it', async () => {
    const { user, password } = await instance.createUser({ email: 'reissued@example.com' });
    const byAcme = cookiePair(setCookie(await signInAs('reissued', user.email), 'gh.auth')!);
    const changed = await instance.app.inject({
      method: 'POST',
      url: '/account/password',
      headers: { cookie: byAcme },
      payload: { currentPassword: password, newPassword: 'a new password, long enough 42' },
    });
    expect(changed.statusCode).toBe(204);
    const reissued = cookiePair(setCookie(changed, 'gh.auth')!);
    const byPassword = cookiePair(
      setCookie(await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password: 'a new password, long enough 42' } }), 'gh.auth')!,
    );
    expect((await instance.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers: { cookie: byPassword } })).statusCode).toBe(204);
    expect(await profileStatus(reissued)).toBe(401);
    expect(await profileStatus(byPassword)).toBe(200);
  });

  it('keeps one login when two DELETEs of two providers of a password-less user run at once', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await signInAs(`two-logins-${round}`, `two-logins-${round}@example.com`);
      expect(created.statusCode).toBe(302);
      const user = (await instance.services.store.users.findByNormalizedEmail(`two-logins-${round}@example.com`))!;
      await instance.services.store.externalLogins.add({ userId: user.id, provider: 'gone', subject: `two-logins-${round}`, createdAt: 1 });
      const token = await instance.tokenFor(user);
      const answers = await Promise.all(
        ['acme', 'gone'].map((name) => instance.app.inject({ method: 'DELETE', url: `/account/logins/${name}`, headers: bearer(token) })),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([204, 409]);
      expect(await instance.services.store.externalLogins.listForUser(user.id)).toHaveLength(1);
    }
  });
});
