/**
 * `POST /account/password` (docs/reference/http.md): a security change that ends the user's other sessions,
 * refresh tokens and access tokens, while the session that asked goes on under a new cookie.
 */
import { describe, expect, it } from 'vitest';
import { antiforgeryCookieName } from '../../src/http/antiforgery.ts';
import { Antiforgery } from '../../src/security/crypto/antiforgery.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const NEW_PASSWORD = 'a fresh and uncommon passphrase';

describe.each(engines)('password change on $engine', (engine) => {
  const ctx = useTestApp(engine);

  async function signedIn() {
    const { user, password } = await ctx.createUser();
    const signIn = async () => {
      const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
      expect(response.statusCode).toBe(200);
      return cookiePair(authSetCookie(response)!);
    };
    return { user, password, signIn };
  }
  const profile = (cookie: string) => ctx.app.inject({ url: '/account/profile', headers: { cookie } });
  const change = (cookie: string, payload: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url: '/account/password', headers: { cookie }, payload });

  it('ends every other session and token, and keeps the asking browser signed in with a new cookie', async () => {
    const { user, password, signIn } = await signedIn();
    const mine = await signIn();
    const other = await signIn();
    const tokens = json<{ accessToken: string; refreshToken: string }>(
      await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }),
    );

    const response = await change(mine, { currentPassword: password, newPassword: NEW_PASSWORD });
    expect(response.statusCode).toBe(204);
    const renewed = cookiePair(authSetCookie(response)!);
    expect(renewed).not.toBe(mine);

    expect((await profile(renewed)).statusCode).toBe(200);
    expect((await profile(mine)).statusCode).toBe(401);
    expect((await profile(other)).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(tokens.accessToken) })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: tokens.refreshToken } })).statusCode).toBe(401);

    const login = (secret: string) => ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password: secret } });
    expect((await login(password)).statusCode).toBe(401);
    expect((await login(NEW_PASSWORD)).statusCode).toBe(200);
    const events = await ctx.services.store.audit.list({ limit: 50 });
    expect(events.filter((event) => event.type === 'password.changed' && event.userId === user.id)).toHaveLength(1);
  });

  it('refuses a wrong current password and a refused new one with 400, changing nothing', async () => {
    const { password, signIn } = await signedIn();
    const mine = await signIn();
    const other = await signIn();
    const wrong = await change(mine, { currentPassword: 'not the password', newPassword: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(400);
    expect(json<{ errors: object }>(wrong).errors).toHaveProperty('currentPassword');
    const common = await change(mine, { currentPassword: password, newPassword: 'password1' });
    expect(common.statusCode).toBe(400);
    expect(json<{ errors: object }>(common).errors).toHaveProperty('newPassword');
    expect((await profile(mine)).statusCode).toBe(200);
    expect((await profile(other)).statusCode).toBe(200);
  });

  it('is for users: an API-key caller gets 403, an anonymous one 401', async () => {
    const key = await ctx.apiKey();
    const payload = { currentPassword: 'x', newPassword: NEW_PASSWORD };
    expect((await ctx.app.inject({ method: 'POST', url: '/account/password', headers: { 'x-api-key': key }, payload })).statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/password', payload })).statusCode).toBe(401);
  });

  it('takes the profile page’s form: 303 back to the profile, or the page again with the error', async () => {
    const { user, password, signIn } = await signedIn();
    const mine = await signIn();
    const antiforgery = new Antiforgery(ctx.services.keyRing.secrets.antiforgery);
    const cookieToken = antiforgery.newCookieToken();
    const cookie = `${mine}; ${antiforgeryCookieName(false)}=${cookieToken}`;
    const field = antiforgery.requestToken(cookieToken, String(user.id));
    const post = (fields: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url: '/account/password',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: ctx.services.config.publicUrl.origin },
        payload: new URLSearchParams({ ...fields, __RequestVerificationToken: field }).toString(),
      });
    const failed = await post({ currentPassword: 'wrong', newPassword: NEW_PASSWORD });
    expect(failed.statusCode).toBe(400);
    expect(failed.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(failed.body).toContain('The current password is wrong.');
    const done = await post({ currentPassword: password, newPassword: NEW_PASSWORD });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/account/profile?status=password-changed');
  });
});
