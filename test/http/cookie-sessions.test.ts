/**
 * Cookie sessions over JSON (docs/reference/http.md): POST /account/login sets the auth cookie,
 * GET /account/profile reads it, POST /account/logout ends the session in the store; sliding
 * expiry (COOKIE_HOURS) under an injected clock; the login redirect for browser navigation
 * and 401 for API and XHR callers. On each store engine.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { localReturnUrl } from '../../src/endpoints/return-url.ts';
import { testEngines } from '../helpers/databases.ts';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

const HTML_NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe.each(engines)('cookie sessions on $engine', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 2, 2, 12));
  const ctx = useTestApp(engine, { clock, env: { COOKIE_HOURS: '1' } });
  const profile = (headers: Record<string, string>) => ctx.app.inject({ url: '/account/profile', headers });

  describe('POST /account/login', () => {
    it('answers {"succeeded":true} with an HttpOnly, SameSite=Lax, Path=/ browser-session cookie (no Secure in development)', async () => {
      const { response, setCookie } = await signInWithCookie(ctx);
      expect(json(response)).toEqual({ succeeded: true });
      expect(response.headers['cache-control']).toBe('no-store');
      const attributes = setCookie.split(';').map((part) => part.trim().toLowerCase());
      expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
      expect(attributes.some((part) => part === 'secure' || part.startsWith('domain='))).toBe(false);
      // Without rememberMe the cookie dies with the browser.
      expect(attributes.some((part) => part.startsWith('expires=') || part.startsWith('max-age='))).toBe(false);
      // The value is sealed: neither the session token nor anything readable is in it or in the body.
      expect(response.body).not.toContain(cookiePair(setCookie).slice('gh.auth='.length));
    });

    it('signs in by user name too', async () => {
      const { user, password } = await ctx.createUser({ userName: 'ada.lovelace' });
      const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { userName: user.userName, password } });
      expect(response.statusCode).toBe(200);
      expect(authSetCookie(response)).toBeDefined();
    });

    it('makes a persistent cookie with rememberMe, expiring after COOKIE_HOURS', async () => {
      const { setCookie } = await signInWithCookie(ctx, { rememberMe: true });
      expect(setCookie).toContain('Max-Age=3600');
      expect(setCookie).toContain(`Expires=${new Date(clock.now() + 3_600_000).toUTCString()}`);
    });

    it('answers a wrong password with the generic 401 sign-in failure and no cookie', async () => {
      const { user } = await ctx.createUser();
      const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password: 'wrong password!' } });
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(json(response)).toMatchObject({ status: 401, succeeded: false });
      expect(json(response)).not.toHaveProperty('isNotAllowed');
      expect(authSetCookie(response)).toBeUndefined();
    });

    it('says isNotAllowed for the right password of an unconfirmed account, and sets no cookie', async () => {
      const { user, password } = await ctx.createUser({ emailConfirmed: false });
      const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
      expect(response.statusCode).toBe(401);
      expect(json(response)).toMatchObject({ succeeded: false, isNotAllowed: true });
      expect(authSetCookie(response)).toBeUndefined();
    });

    it('refuses a body without e-mail or user name, and unknown fields, with 400', async () => {
      const missing = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { password: 'x' } });
      expect(missing.statusCode).toBe(400);
      const unknown = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: 'a@b.c', password: 'x', admin: true } });
      expect(unknown.statusCode).toBe(400);
    });
  });

  describe('GET /account/profile', () => {
    it('describes the signed-in user from the cookie', async () => {
      const { user, password } = await ctx.createUser({ userName: 'grace', roles: ['Editor'], claims: [{ type: 'org_id', value: '3' }] });
      const login = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
      const response = await profile({ cookie: cookiePair(authSetCookie(login)!) });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({
        id: user.id,
        email: user.email,
        userName: 'grace',
        emailConfirmed: true,
        phoneNumber: null,
        phoneConfirmed: false,
        twoFactorEnabled: false,
        roles: ['Editor'],
        claims: [{ type: 'org_id', value: '3' }],
        logins: [],
      });
    });

    it('describes a bearer caller too', async () => {
      const { user } = await ctx.createUser();
      const response = await profile(bearer(await ctx.tokenFor(user)));
      expect(response.statusCode).toBe(200);
      expect(json(response).id).toBe(user.id);
    });

    it('refuses an API-key caller with 403: it acts for no user', async () => {
      const response = await profile({ 'x-api-key': await ctx.apiKey() });
      expect(response.statusCode).toBe(403);
      expect(json(response)).toMatchObject({ title: 'Forbidden', status: 403 });
    });
  });

  describe('POST /account/logout', () => {
    it('answers 204, clears the cookie, and the same cookie is anonymous afterwards', async () => {
      const { cookie } = await signInWithCookie(ctx);
      expect((await profile({ cookie })).statusCode).toBe(200);
      const logout = await ctx.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie } });
      expect(logout.statusCode).toBe(204);
      const cleared = authSetCookie(logout)!;
      expect(cleared).toMatch(/^gh\.auth=;/);
      expect(cleared).toContain('Max-Age=0');
      expect((await profile({ cookie })).statusCode).toBe(401);
    });

    it('needs a signed-in caller', async () => {
      expect((await ctx.app.inject({ method: 'POST', url: '/account/logout' })).statusCode).toBe(401);
    });
  });

  describe('sliding expiry (COOKIE_HOURS=1)', () => {
    it('ends a session left unused for longer than COOKIE_HOURS', async () => {
      const { cookie } = await signInWithCookie(ctx);
      clock.advance(3_600_000 + 1_000);
      expect((await profile({ cookie })).statusCode).toBe(401);
    });

    it('keeps a session in use alive past its first expiry, and re-sends a persistent cookie when it slides', async () => {
      const { cookie } = await signInWithCookie(ctx, { rememberMe: true });
      clock.advance(20 * 60_000);
      const early = await profile({ cookie });
      expect(early.statusCode).toBe(200);
      // Less than half the lifetime gone: nothing slides, nothing is re-sent.
      expect(authSetCookie(early)).toBeUndefined();
      clock.advance(20 * 60_000);
      const renewed = await profile({ cookie });
      expect(renewed.statusCode).toBe(200);
      const setCookie = authSetCookie(renewed)!;
      expect(cookiePair(setCookie)).toBe(cookie);
      expect(setCookie).toContain(`Expires=${new Date(clock.now() + 3_600_000).toUTCString()}`);
      clock.advance(50 * 60_000); // 90 minutes after sign-in, 50 after the renewal
      expect((await profile({ cookie })).statusCode).toBe(200);
    });

    it('slides a browser-session cookie on the server without re-sending it', async () => {
      const { cookie } = await signInWithCookie(ctx);
      clock.advance(40 * 60_000);
      const renewed = await profile({ cookie });
      expect(renewed.statusCode).toBe(200);
      expect(authSetCookie(renewed)).toBeUndefined();
      clock.advance(40 * 60_000);
      expect((await profile({ cookie })).statusCode).toBe(200);
    });
  });

  describe('login redirect', () => {
    it('sends a browser navigating to a cookie-protected page to the login page with the local path and query', async () => {
      const response = await ctx.app.inject({ url: '/account/profile?tab=security', headers: { accept: HTML_NAVIGATION } });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/account/login?ReturnUrl=%2Faccount%2Fprofile%3Ftab%3Dsecurity');
    });

    it('does the same for a browser whose cookie no longer works', async () => {
      const { cookie } = await signInWithCookie(ctx);
      await ctx.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie } });
      const response = await ctx.app.inject({ url: '/account/profile', headers: { accept: HTML_NAVIGATION, 'sec-fetch-mode': 'navigate', cookie } });
      expect(response.statusCode).toBe(302);
    });

    it('answers JSON, XHR, fetch and wildcard callers with 401, never a redirect', async () => {
      const cases: Record<string, string>[] = [
        { accept: 'application/json' },
        { accept: '*/*' },
        {},
        { accept: HTML_NAVIGATION, 'x-requested-with': 'XMLHttpRequest' },
        { accept: HTML_NAVIGATION, 'sec-fetch-mode': 'cors' },
      ];
      for (const headers of cases) {
        const response = await profile(headers);
        expect(response.statusCode, JSON.stringify(headers)).toBe(401);
        expect(response.headers.location).toBeUndefined();
        expect(response.headers['www-authenticate']).toBe('Bearer');
      }
    });

    it('answers a browser that sent a bad bearer token with 401, not a redirect', async () => {
      const response = await profile({ accept: HTML_NAVIGATION, authorization: 'Bearer a.b.c' });
      expect(response.statusCode).toBe(401);
    });

    it('never produces a ReturnUrl that leads to another host', async () => {
      const paths = ['/account/profile?next=//evil.example', '/account/profile?x=%2F%2Fevil.example', '/documents/1', '/me?u=https://evil.example/'];
      for (const url of paths) {
        const response = await ctx.app.inject({ url, headers: { accept: HTML_NAVIGATION } });
        expect(response.statusCode, url).toBe(302);
        const location = response.headers.location as string;
        expect(location.startsWith('/account/login')).toBe(true);
        const returnUrl = new URL(location, 'http://gatehouse.test').searchParams.get('ReturnUrl');
        expect(returnUrl === null || localReturnUrl(returnUrl) === returnUrl).toBe(true);
        expect(new URL(returnUrl ?? '/', 'http://gatehouse.test').host).toBe('gatehouse.test');
      }
    });
  });
});
