/**
 * SEC-15 (login CSRF, refresh token in a cookie) and docs/reference/http.md: `POST /auth/refresh` and
 * `POST /auth/revoke` that read the `gh.refresh` cookie follow the cross-site rule of the cookie
 * scheme. A foreign `Origin`, `Origin: null`, or `Sec-Fetch-Site: cross-site`/`same-site` without
 * an Origin is 403 problem+json, and the cookie is neither rotated, revoked nor cleared (a forged
 * revoke would otherwise sign the victim out). The PUBLIC_URL origin, a CORS_ORIGINS origin and
 * clients that send neither header pass; a token in a JSON body is not a cookie and is not checked.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const PUBLIC_URL = 'http://gatehouse.test:8080';
const TRUSTED_APP = 'https://app.example.com';

const refused: [string, Record<string, string>][] = [
  ['a foreign Origin', { origin: 'https://evil.example' }],
  ['Origin: null', { origin: 'null' }],
  ['a look-alike of the public origin', { origin: 'http://gatehouse.test' }],
  ['Sec-Fetch-Site: cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site without Origin', { 'sec-fetch-site': 'same-site' }],
];

const allowed: [string, Record<string, string>][] = [
  ['the public origin', { origin: PUBLIC_URL }],
  ['a CORS_ORIGINS origin', { origin: TRUSTED_APP }],
  ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin' }],
  ['neither header (a non-browser client)', {}],
];

describe.runIf(sqlite)('the refresh cookie from another site (SEC-15)', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL, CORS_ORIGINS: TRUSTED_APP } });

  /** A signed-in user whose refresh token lives in the gh.refresh cookie. */
  async function refreshCookie(): Promise<string> {
    const { user, password } = await ctx.createUser();
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password, setCookie: true } });
    expect(response.statusCode).toBe(200);
    return cookiePair(authSetCookie(response, 'gh.refresh')!);
  }
  const post = (url: string, headers: Record<string, string>) => ctx.app.inject({ method: 'POST', url, headers });

  function expectRefused(response: LightMyRequestResponse, label: string): void {
    expect(response.statusCode, label).toBe(403);
    expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
    expect(json(response), label).toMatchObject({ title: 'Forbidden', status: 403, code: 'GH_FORBIDDEN' });
    expect(authSetCookie(response, 'gh.refresh'), `${label}: the cookie is left alone`).toBeUndefined();
  }

  for (const [name, headers] of refused) {
    it(`refuses a refresh and a revoke with ${name}, leaving the cookie working`, async () => {
      const cookie = await refreshCookie();
      expectRefused(await post('/auth/refresh', { cookie, ...headers }), `refresh, ${name}`);
      expectRefused(await post('/auth/revoke', { cookie, ...headers }), `revoke, ${name}`);
      // Neither request used the token: it still refreshes from this site.
      const own = await post('/auth/refresh', { cookie, origin: PUBLIC_URL });
      expect(own.statusCode).toBe(200);
      expect(json(own)).toHaveProperty('accessToken');
    });
  }

  for (const [name, headers] of allowed) {
    it(`lets a refresh and a revoke through with ${name}`, async () => {
      const cookie = await refreshCookie();
      const refreshed = await post('/auth/refresh', { cookie, ...headers });
      expect(refreshed.statusCode).toBe(200);
      const rotated = cookiePair(authSetCookie(refreshed, 'gh.refresh')!);
      expect((await post('/auth/revoke', { cookie: rotated, ...headers })).statusCode).toBe(204);
      expect((await post('/auth/refresh', { cookie: rotated })).statusCode).toBe(401);
    });
  }

  it('does not check a token sent in a JSON body (a cross-site page cannot send one without a preflight)', async () => {
    const { user, password } = await ctx.createUser();
    const { refreshToken } = json<{ refreshToken: string }>(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }));
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', headers: { origin: TRUSTED_APP }, payload: { refreshToken } });
    expect(response.statusCode).toBe(200);
  });

  it('refuses an empty text/plain post from another site, the simple request a page can send', async () => {
    const cookie = await refreshCookie();
    const forged = await ctx.app.inject({
      method: 'POST',
      url: '/auth/refresh',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'text/plain;charset=UTF-8' },
      payload: '',
    });
    expectRefused(forged, 'empty text/plain');
  });
});
