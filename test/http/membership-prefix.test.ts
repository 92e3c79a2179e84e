/**
 * Membership mounted under a prefix (`prefix: '/identity'`), walked as a browser and a program
 * would: the links in real mails, the pages' form actions and links, the login redirect, the
 * redirects after form posts, the refresh cookie's Path, the two-factor step and the external
 * sign-in's redirect URI (registered with a real OpenID provider) all carry the prefix, and
 * nothing answers at the old paths.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import Fastify from 'fastify';
import { gatehouse } from 'gatehouse-auth/fastify';
import { createStore } from 'gatehouse-auth/store';

const engines = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const PREFIX = '/identity';
const PASSWORD = 'a long and uncommon passphrase';
const HTML_NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SAME_ORIGIN = { origin: PUBLIC_URL };

describe.each(engines)('membership under a prefix on $engine', (engine) => {
  let smtp: TestSmtpServer;
  let provider: TestProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    provider = await startTestProvider(`${PUBLIC_URL}${PREFIX}/signin-acme`);
    ctx = await startTestApp(await engine.createDatabaseUrl(), {
      env: {
        PUBLIC_URL,
        SMTP_URL: smtp.url,
        RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
        RATE_LIMIT_IP_PER_MINUTE: '0',
        OIDC_ACME_ISSUER: provider.issuer,
        OIDC_ACME_CLIENT_ID: provider.clientId,
        OIDC_ACME_CLIENT_SECRET: provider.clientSecret,
      },
      appOptions: { prefix: PREFIX },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await provider?.close();
    await smtp?.close();
    await engine.dropAll();
  });

  let mailboxes = 0;
  const newAddress = () => `prefixed${++mailboxes}-${process.pid}@example.com`;
  const page = (url: string, cookie?: string) => ctx.app.inject({ url, headers: { accept: HTML_NAVIGATION, ...(cookie ? { cookie } : {}) } });
  const setCookie = (response: LightMyRequestResponse, name: string) => authSetCookie(response, name);

  /** The one link of a mail: absolute, under PUBLIC_URL and the prefix. */
  function onlyLink(mail: ReceivedMail): URL {
    const urls = mail.text?.match(/https?:\/\/[^\s<>"]+/g) ?? [];
    expect(urls).toHaveLength(1);
    return new URL(urls[0]!);
  }

  /** Every form action and link of a page points under the prefix (or to another origin). */
  function expectUnderPrefix(response: LightMyRequestResponse): void {
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const targets = [...response.body.matchAll(/\s(?:href|action)="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      if (/^https?:/.test(target)) continue;
      expect(target.startsWith(`${PREFIX}/`), target).toBe(true);
    }
  }

  it('register → the mail’s link under the prefix → confirmed → the login redirect → sign in on the page → back where the browser was → sign out', async () => {
    const email = newAddress();
    const registerPage = await page(`${PREFIX}/account/register`);
    expectUnderPrefix(registerPage);
    const registration = await pageForm(ctx.app, `${PREFIX}/account/register`, `${PREFIX}/account/register`);
    const registered = await registration.submit(SAME_ORIGIN, { email, password: PASSWORD });
    expect(registered.statusCode).toBe(303);
    expect(registered.headers.location).toBe(`${PREFIX}/account/register?status=sent`);
    expectUnderPrefix(await page(registered.headers.location as string));

    const link = onlyLink(await smtp.waitForMail(email));
    expect(link.origin).toBe(PUBLIC_URL);
    expect(link.pathname).toBe(`${PREFIX}/account/confirm-email`);
    const confirmed = await page(`${link.pathname}${link.search}`);
    expect(confirmed.statusCode).toBe(200);
    expectUnderPrefix(confirmed);

    // A protected page of the application itself (outside the prefix) and one of membership.
    const protectedPage = await page('/documents/1?tab=x');
    expect(protectedPage.statusCode).toBe(302);
    expect(protectedPage.headers.location).toBe(`${PREFIX}/account/login?ReturnUrl=%2Fdocuments%2F1%3Ftab%3Dx`);
    const profileRedirect = await page(`${PREFIX}/account/profile`);
    expect(profileRedirect.headers.location).toBe(`${PREFIX}/account/login?ReturnUrl=%2Fidentity%2Faccount%2Fprofile`);

    const loginUrl = protectedPage.headers.location as string;
    const loginPage = await page(loginUrl);
    expectUnderPrefix(loginPage);
    expect(loginPage.body).toContain(`href="${PREFIX}/account/external-login/acme?returnUrl=%2Fdocuments%2F1%3Ftab%3Dx"`);
    const login = await pageForm(ctx.app, loginUrl, loginUrl);
    const signedIn = await login.submit(SAME_ORIGIN, { email, password: PASSWORD });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/documents/1?tab=x');
    // The auth cookie authenticates the whole application, not only the membership routes.
    const authCookie = setCookie(signedIn, 'gh.auth')!;
    expect(authCookie).toMatch(/; Path=\/(;|$)/);
    const cookie = cookiePair(authCookie);
    expect(json(await ctx.app.inject({ url: `${PREFIX}/account/profile`, headers: { cookie } }))).toMatchObject({ email, emailConfirmed: true });
    expect((await ctx.app.inject({ url: '/me', headers: { cookie } })).statusCode).toBe(200);

    const profile = await page(`${PREFIX}/account/profile`, cookie);
    expect(profile.statusCode).toBe(200);
    expectUnderPrefix(profile);
    expectUnderPrefix(await page(`${PREFIX}/account/2fa`, cookie));
    const logout = await pageForm(ctx.app, `${PREFIX}/account/profile`, `${PREFIX}/account/logout`, { cookie });
    const signedOut = await logout.submit(SAME_ORIGIN);
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe(`${PREFIX}/account/login`);
    expect((await ctx.app.inject({ url: `${PREFIX}/account/profile`, headers: { cookie } })).statusCode).toBe(401);
  });

  it('password reset: the mail’s link opens the reset page under the prefix, whose form sets the password', async () => {
    const { user } = await ctx.createUser({ email: newAddress() });
    const forgotPage = await page(`${PREFIX}/account/reset-password`);
    expectUnderPrefix(forgotPage);
    const forgot = await pageForm(ctx.app, `${PREFIX}/account/reset-password`, `${PREFIX}/account/forgot-password`);
    const asked = await forgot.submit(SAME_ORIGIN, { email: user.email });
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe(`${PREFIX}/account/reset-password?status=sent`);

    const link = onlyLink(await smtp.waitForMail(user.email));
    expect(link.pathname).toBe(`${PREFIX}/account/reset-password`);
    const resetUrl = `${link.pathname}${link.search}`;
    expectUnderPrefix(await page(resetUrl));
    const reset = await pageForm(ctx.app, resetUrl, `${PREFIX}/account/reset-password`);
    const done = await reset.submit(SAME_ORIGIN, { newPassword: 'the new and uncommon passphrase' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${PREFIX}/account/reset-password?status=done`);
    expectUnderPrefix(await page(done.headers.location as string));
    const signedIn = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/account/login`, payload: { email: user.email, password: 'the new and uncommon passphrase' } });
    expect(signedIn.statusCode).toBe(200);
  });

  it('tokens at /identity/auth: the refresh cookie is scoped there, rotated and revoked there', async () => {
    const { user, password } = await ctx.createUser();
    const issued = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/auth/token`, payload: { email: user.email, password, setCookie: true } });
    expect(issued.statusCode).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    const first = setCookie(issued, 'gh.refresh')!;
    expect(first).toMatch(/; Path=\/identity\/auth(;|$)/);
    expect(first).toMatch(/HttpOnly/);
    expect(first).toMatch(/SameSite=Strict/);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(json<{ accessToken: string }>(issued).accessToken) })).statusCode).toBe(200);

    const refreshed = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/auth/refresh`, headers: { cookie: cookiePair(first), ...SAME_ORIGIN } });
    expect(refreshed.statusCode).toBe(200);
    const second = setCookie(refreshed, 'gh.refresh')!;
    expect(second).toMatch(/; Path=\/identity\/auth(;|$)/);
    expect(cookiePair(second)).not.toBe(cookiePair(first));

    const revoked = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/auth/revoke`, headers: { cookie: cookiePair(second), ...SAME_ORIGIN } });
    expect(revoked.statusCode).toBe(204);
    // Cleared at the Path it was set at: a browser deletes it only then.
    expect(setCookie(revoked, 'gh.refresh')).toMatch(/^gh\.refresh=;.*Path=\/identity\/auth/);
    const refused = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/auth/refresh`, payload: { refreshToken: cookiePair(second).split('=')[1] } });
    expect(refused.statusCode).toBe(401);
  });

  it('two-factor: the first step sends the browser to the second under the prefix, whose forms post there', async () => {
    const { user, password } = await ctx.createUser({ email: newAddress() });
    const signedIn = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/account/login`, payload: { email: user.email, password } });
    const cookie = cookiePair(setCookie(signedIn, 'gh.auth')!);
    const setUp = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/account/2fa/authenticator`, payload: {}, headers: { cookie } });
    const { sharedKey } = json<{ sharedKey: string }>(setUp);
    const enabled = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/account/2fa/enable`, payload: { code: totpCode(sharedKey) }, headers: { cookie } });
    expect(enabled.statusCode).toBe(200);

    const loginUrl = `${PREFIX}/account/login?ReturnUrl=%2Fdocuments`;
    const login = await pageForm(ctx.app, loginUrl, loginUrl);
    const firstStep = await login.submit(SAME_ORIGIN, { email: user.email, password });
    expect(firstStep.statusCode).toBe(303);
    const secondStepUrl = firstStep.headers.location as string;
    expect(secondStepUrl).toBe(`${PREFIX}/account/login/2fa?ReturnUrl=%2Fdocuments`);
    // Path=/ like every cookie that may carry the __Host- prefix (production), which demands it.
    const pending = setCookie(firstStep, 'gh.twofactor')!;
    expect(pending).toMatch(/; Path=\/(;|$)/);

    const secondStepPage = await page(secondStepUrl, cookiePair(pending));
    expect(secondStepPage.statusCode).toBe(200);
    expectUnderPrefix(secondStepPage);
    expect(secondStepPage.body).toContain(`action="${PREFIX}/account/login/2fa/send?ReturnUrl=%2Fdocuments"`);
    expect(secondStepPage.body).toContain(`action="${PREFIX}/account/login/recovery?ReturnUrl=%2Fdocuments"`);
    const secondStep = await pageForm(ctx.app, secondStepUrl, secondStepUrl, { cookie: cookiePair(pending) });
    // The next step's code: the one that turned two-factor on is spent.
    const done = await secondStep.submit(SAME_ORIGIN, { code: totpCode(sharedKey, 1), provider: 'Authenticator' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/documents');
    expect(setCookie(done, 'gh.auth')).toBeDefined();

    // Without a pending sign-in the second step sends a browser back to the login page.
    const stale = await page(`${PREFIX}/account/login/2fa`);
    expect(stale.statusCode).toBe(303);
    expect(stale.headers.location).toBe(`${PREFIX}/account/login`);
  });

  it('external sign-in: the redirect URI registered with the provider is PUBLIC_URL + /identity/signin-acme, and the callback there signs in', async () => {
    provider.accounts.set('prefixed-person', { email: 'prefixed.person@example.com', emailVerified: true });
    const start = await ctx.app.inject({ url: `${PREFIX}/account/external-login/acme?returnUrl=%2Fdocuments` });
    expect(start.statusCode).toBe(302);
    const authorization = new URL(start.headers.location as string);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}${PREFIX}/signin-acme`);
    const correlation = cookiePair(setCookie(start, 'gh.oidc')!);
    // The provider accepts only the registered redirect URI: it answers to the prefixed one.
    const back = await provider.authorize(authorization.href, 'prefixed-person');
    expect(back.pathname).toBe(`${PREFIX}/signin-acme`);
    const done = await ctx.app.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: correlation } });
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe('/documents');
    const cookie = cookiePair(setCookie(done, 'gh.auth')!);
    expect(json(await ctx.app.inject({ url: `${PREFIX}/account/profile`, headers: { cookie } }))).toMatchObject({ logins: [{ provider: 'acme' }] });

    // A refusal's page leads back to the login page under the prefix.
    const refused = await page(`${PREFIX}/signin-acme?error=access_denied`);
    expect(refused.statusCode).toBe(400);
    expectUnderPrefix(refused);
  });

  it('links a provider from the profile page, and comes back to the profile under the prefix', async () => {
    const { user, password } = await ctx.createUser({ email: newAddress() });
    const signedIn = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/account/login`, payload: { email: user.email, password } });
    const cookie = cookiePair(setCookie(signedIn, 'gh.auth')!);
    const form = await pageForm(ctx.app, `${PREFIX}/account/profile`, `${PREFIX}/account/logins/acme`, { cookie });
    const started = await form.submit(SAME_ORIGIN);
    expect(started.statusCode).toBe(302);
    const authorization = new URL(started.headers.location as string);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}${PREFIX}/signin-acme`);
    provider.accounts.set('linking-person', { email: 'someone.else@example.com', emailVerified: true });
    const back = await provider.authorize(authorization.href, 'linking-person');
    const correlation = cookiePair(setCookie(started, 'gh.oidc')!);
    const linked = await ctx.app.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: `${cookie}; ${correlation}` } });
    expect(linked.statusCode).toBe(303);
    expect(linked.headers.location).toBe(`${PREFIX}/account/profile`);
  });

  it('answers nothing at the old paths, and keeps health, the JWKS, /me and GraphQL at the root', async () => {
    const admin = await ctx.createUser({ roles: ['Admin'] });
    const token = await ctx.tokenFor(admin.user);
    const old: [string, string][] = [
      ['GET', '/account/login'],
      ['POST', '/account/login'],
      ['GET', '/account/register'],
      ['GET', '/account/confirm-email'],
      ['GET', '/account/reset-password'],
      ['GET', '/account/profile'],
      ['GET', '/account/login/2fa'],
      ['POST', '/account/2fa/enable'],
      ['POST', '/auth/token'],
      ['POST', '/auth/refresh'],
      ['POST', '/auth/revoke'],
      ['GET', '/admin/users'],
      ['GET', '/account/external-login/acme'],
      ['GET', '/signin-acme'],
    ];
    for (const [method, url] of old) {
      const response = await ctx.app.inject({ method: method as 'GET' | 'POST', url, headers: bearer(token), ...(method === 'POST' ? { payload: {} } : {}) });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }

    const users = await ctx.app.inject({ url: `${PREFIX}/admin/users`, headers: bearer(token) });
    expect(users.statusCode).toBe(200);
    const someone = await ctx.createUser();
    expect((await ctx.app.inject({ url: `${PREFIX}/admin/users`, headers: bearer(await ctx.tokenFor(someone.user)) })).statusCode).toBe(403);

    expect((await ctx.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect(json<{ keys: unknown[] }>(await ctx.app.inject({ url: '/.well-known/jwks.json' })).keys.length).toBeGreaterThan(0);
    expect((await ctx.app.inject({ url: `${PREFIX}/.well-known/jwks.json` })).statusCode).toBe(404);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(token) })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/graphql?query=%7B__typename%7D', headers: bearer(token) })).statusCode).toBe(200);
  });

  it('keeps answers of the membership routes out of caches, as at the root', async () => {
    for (const url of [`${PREFIX}/account/login`, `${PREFIX}/account/register`, `${PREFIX}/account/reset-password`]) {
      const response = await ctx.app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('no-store');
    }
    const refused = await ctx.app.inject({ method: 'POST', url: `${PREFIX}/auth/refresh`, payload: {} });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
  });
});

describe('the prefix option', () => {
  it('refuses a prefix with a trailing slash when the app is built, naming the rule', async () => {
    const [engine] = engines;
    const databaseUrl = await engine!.createDatabaseUrl();
    const store = await createStore(databaseUrl);
    const build = async (prefix: string) => {
      const app = Fastify();
      try {
        await app.register(gatehouse, { store, prefix }).ready();
      } finally {
        await app.close();
      }
    };
    try {
      await expect(build('/identity/')).rejects.toThrow(/prefix must be .*trailing '\/'/);
      await expect(build('identity')).rejects.toThrow(/prefix must be .*starts with '\/'/);
    } finally {
      await store.close();
      await engine!.dropAll();
    }
  });
});
