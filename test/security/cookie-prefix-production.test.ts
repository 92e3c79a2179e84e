/**
 * SEC-01 / SEC-02 in production: the auth cookie is `__Host-gh.auth` with Secure, HttpOnly,
 * SameSite=Lax, Path=/ and no Domain; only that exact name is read, so an unprefixed `gh.auth`
 * planted from a sibling subdomain or over plain HTTP authenticates nobody.
 */
import { describe, expect, it } from 'vitest';
import { authSetCookie, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://id.example.com',
  KEYRING_SECRET: 'production-keyring-secret-for-tests-0123456789',
  SMTP_URL: 'smtp://user:pass@127.0.0.1:2525',
};

describe.each(engines)('the auth cookie in production on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: PRODUCTION });
  const profile = (cookie: string) => ctx.app.inject({ url: '/account/profile', headers: { cookie } });

  it('is __Host-gh.auth: Secure, HttpOnly, SameSite=Lax, Path=/, no Domain', async () => {
    const { response, setCookie } = await signInWithCookie(ctx, { cookieName: '__Host-gh.auth' });
    expect(authSetCookie(response, 'gh.auth')).toBeUndefined();
    const attributes = setCookie.split(';').map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=lax', 'path=/']));
    expect(attributes.some((part) => part.startsWith('domain='))).toBe(false);
  });

  it('reads only the prefixed name: the same value under gh.auth is anonymous', async () => {
    const { cookie } = await signInWithCookie(ctx, { cookieName: '__Host-gh.auth' });
    expect((await profile(cookie)).statusCode).toBe(200);
    const value = cookie.slice('__Host-gh.auth='.length);
    expect((await profile(`gh.auth=${value}`)).statusCode).toBe(401);
    // An attacker's unprefixed cookie beside the victim's does not displace it.
    expect((await profile(`gh.auth=attacker; ${cookie}`)).statusCode).toBe(200);
  });

  it('clears the prefixed cookie at sign-out, with the attributes the prefix requires', async () => {
    const { cookie } = await signInWithCookie(ctx, { cookieName: '__Host-gh.auth' });
    const logout = await ctx.app.inject({
      method: 'POST',
      url: '/account/logout',
      headers: { cookie, origin: 'https://id.example.com' },
    });
    expect(logout.statusCode).toBe(204);
    const cleared = authSetCookie(logout, '__Host-gh.auth')!;
    expect(cleared).toMatch(/^__Host-gh\.auth=;/);
    expect(cleared).toContain('Secure');
    expect(cleared).toContain('Path=/');
  });
});
