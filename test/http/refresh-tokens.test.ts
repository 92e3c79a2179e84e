/**
 * Refresh tokens over HTTP, the way a client uses them (docs/reference/http.md and docs/reference/tokens.md): `/auth/token`
 * answers an access token and the first refresh token of a family; `/auth/refresh` rotates it
 * (SEC-33); `/auth/revoke` ends the family; with `setCookie:true` the refresh token travels as
 * the `gh.refresh` cookie (HttpOnly, SameSite=Strict, Path=/auth, Secure only in production) and
 * comes back as a cookie, never in the body. On each store engine.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

const COOKIE = 'gh.refresh';
const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://gh.example',
  KEYRING_SECRET: 'test-keyring-secret-of-more-than-32-characters',
  SMTP_URL: 'smtp://localhost:2525',
};

interface TokenBody {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  expiresIn: number;
}

async function signIn(ctx: TestApp, extra: Record<string, unknown> = {}) {
  const { user, password } = await ctx.createUser({ userName: `rt-user-${Math.random().toString(36).slice(2, 10)}` });
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password, ...extra } });
  expect(response.statusCode).toBe(200);
  return { user, response, body: json<TokenBody>(response) };
}

function refresh(ctx: TestApp, refreshToken: string) {
  return ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
}

function setCookieHeaders(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

/** The one `gh.refresh` Set-Cookie line of a response. */
function refreshCookieLine(response: LightMyRequestResponse, name = COOKIE): string {
  const lines = setCookieHeaders(response).filter((line) => line.startsWith(`${name}=`));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

function cookieValue(line: string): string {
  return decodeURIComponent(line.slice(line.indexOf('=') + 1).split(';')[0]!);
}

function attributes(line: string): string[] {
  return line
    .split(';')
    .slice(1)
    .map((part) => part.trim().toLowerCase());
}

/** The name the access token's principal answers at /me, or the status when refused. */
async function meWith(ctx: TestApp, accessToken: string): Promise<string | number> {
  const response = await ctx.app.inject({ url: '/me', headers: bearer(accessToken) });
  return response.statusCode === 200 ? response.body : response.statusCode;
}

describe.each(engines)('refresh tokens over HTTP on $engine', (engine) => {
  const ctx = useTestApp(engine);

  describe('POST /auth/token', () => {
    it('answers an access token, an opaque refresh token, tokenType Bearer and expiresIn, not to be cached', async () => {
      const { user, response, body } = await signIn(ctx);
      expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'tokenType']);
      expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });
      expect(response.headers['cache-control']).toBe('no-store');
      // Opaque: base64url of at least 256 bits, no JWT structure.
      expect(body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(Buffer.from(body.refreshToken!, 'base64url').length).toBeGreaterThanOrEqual(32);
      expect(body.refreshToken).not.toContain('.');
      expect(body.refreshToken).not.toBe(body.accessToken);
      expect(await meWith(ctx, body.accessToken)).toBe(user.userName);
    });

    it('starts a new, different refresh token at every sign-in', async () => {
      const { user, password } = await ctx.createUser();
      const tokens = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
        tokens.add(json<TokenBody>(response).refreshToken!);
      }
      expect(tokens.size).toBe(3);
    });
  });

  describe('POST /auth/refresh with the token in the body (SEC-33)', () => {
    it('rotates: a new access token that works and a new refresh token, and the old one is then refused with an empty 401', async () => {
      const { user, body } = await signIn(ctx);
      const r1 = body.refreshToken!;
      const first = await refresh(ctx, r1);
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      const rotated = json<TokenBody>(first);
      expect(rotated).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 });
      expect(rotated.refreshToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(rotated.refreshToken).not.toBe(r1);
      expect(rotated.accessToken).not.toBe(body.accessToken);
      expect(await meWith(ctx, rotated.accessToken)).toBe(user.userName);
      expect(setCookieHeaders(first).filter((line) => line.startsWith(`${COOKIE}=`))).toEqual([]);

      const again = await refresh(ctx, r1);
      expect(again.statusCode).toBe(401);
      expect(again.body).toBe('');
      expect(again.headers['www-authenticate']).toBeUndefined();
    });

    it('keeps rotating along a chain, each token usable exactly once', async () => {
      const { body } = await signIn(ctx);
      const chain = [body.refreshToken!];
      for (let i = 0; i < 5; i++) {
        const response = await refresh(ctx, chain.at(-1)!);
        expect(response.statusCode, `rotation ${i + 1}`).toBe(200);
        chain.push(json<TokenBody>(response).refreshToken!);
      }
      expect(new Set(chain).size).toBe(chain.length);
      // The newest one still works (the chain was not revoked along the way).
      expect((await refresh(ctx, chain.at(-1)!)).statusCode).toBe(200);
    });

    it('accepts the .NET spelling RefreshToken', async () => {
      const { body } = await signIn(ctx);
      const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { RefreshToken: body.refreshToken } });
      expect(response.statusCode).toBe(200);
      expect(json<TokenBody>(response).refreshToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    });

    it('answers an unknown token with 401 and an empty body', async () => {
      const response = await refresh(ctx, 'A'.repeat(43));
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe('');
    });
  });

  describe('POST /auth/revoke', () => {
    it('answers 204 and ends the family: the revoked token is refused afterwards', async () => {
      const { body } = await signIn(ctx);
      const revoke = await ctx.app.inject({ method: 'POST', url: '/auth/revoke', payload: { refreshToken: body.refreshToken } });
      expect(revoke.statusCode).toBe(204);
      expect(revoke.body).toBe('');
      expect((await refresh(ctx, body.refreshToken!)).statusCode).toBe(401);
    });

    it('ends the whole family when given a token already rotated out (the current one dies too)', async () => {
      const { body } = await signIn(ctx);
      const r2 = json<TokenBody>(await refresh(ctx, body.refreshToken!)).refreshToken!;
      const revoke = await ctx.app.inject({ method: 'POST', url: '/auth/revoke', payload: { refreshToken: body.refreshToken } });
      expect(revoke.statusCode).toBe(204);
      expect((await refresh(ctx, r2)).statusCode).toBe(401);
    });

    it('ends only that family: another sign-in of the same user goes on', async () => {
      const { user, password } = await ctx.createUser();
      const tokens: string[] = [];
      for (let i = 0; i < 2; i++) {
        const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
        tokens.push(json<TokenBody>(response).refreshToken!);
      }
      await ctx.app.inject({ method: 'POST', url: '/auth/revoke', payload: { refreshToken: tokens[0] } });
      expect((await refresh(ctx, tokens[0]!)).statusCode).toBe(401);
      expect((await refresh(ctx, tokens[1]!)).statusCode).toBe(200);
    });

    it('answers 204 for an unknown or malformed token too (RFC 7009)', async () => {
      for (const refreshToken of ['A'.repeat(43), 'not-a-token', '']) {
        const response = await ctx.app.inject({ method: 'POST', url: '/auth/revoke', payload: { refreshToken } });
        expect(response.statusCode, refreshToken).toBe(204);
      }
    });
  });

  describe('the gh.refresh cookie', () => {
    it('comes instead of the body field with setCookie:true: HttpOnly, SameSite=Strict, Path=/auth, not Secure outside production', async () => {
      const { body, response } = await signIn(ctx, { setCookie: true });
      expect(body).not.toHaveProperty('refreshToken');
      expect(body).toMatchObject({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 });
      const line = refreshCookieLine(response);
      expect(cookieValue(line)).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      const attrs = attributes(line);
      expect(attrs).toContain('path=/auth');
      expect(attrs).toContain('httponly');
      expect(attrs).toContain('samesite=strict');
      expect(attrs).not.toContain('secure');
      expect(response.body).not.toContain(cookieValue(line));
    });

    it('gives no cookie when setCookie is false or absent', async () => {
      for (const extra of [{}, { setCookie: false }]) {
        const { response, body } = await signIn(ctx, extra);
        expect(setCookieHeaders(response).filter((line) => line.startsWith(`${COOKIE}=`))).toEqual([]);
        expect(body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      }
    });

    it('refreshes with only the cookie and no body: 200, a new cookie, no refreshToken in the body; the old cookie then fails', async () => {
      const { user, response } = await signIn(ctx, { setCookie: true });
      const r1 = cookieValue(refreshCookieLine(response));
      const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: r1 } });
      expect(refreshed.statusCode).toBe(200);
      const body = json<TokenBody>(refreshed);
      expect(body).not.toHaveProperty('refreshToken');
      expect(body).toMatchObject({ accessToken: expect.any(String), tokenType: 'Bearer' });
      expect(await meWith(ctx, body.accessToken)).toBe(user.userName);
      const line = refreshCookieLine(refreshed);
      const r2 = cookieValue(line);
      expect(r2).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(r2).not.toBe(r1);
      expect(attributes(line)).toEqual(expect.arrayContaining(['path=/auth', 'httponly', 'samesite=strict']));
      expect(refreshed.body).not.toContain(r2);

      const replay = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: r1 } });
      expect(replay.statusCode).toBe(401);
      expect(replay.body).toBe('');
    });

    it('refreshes with only the cookie when the request says application/json but has an empty body', async () => {
      const { response } = await signIn(ctx, { setCookie: true });
      const r1 = cookieValue(refreshCookieLine(response));
      const refreshed = await ctx.app.inject({
        method: 'POST',
        url: '/auth/refresh',
        headers: { 'content-type': 'application/json' },
        payload: '',
        cookies: { [COOKIE]: r1 },
      });
      expect(refreshed.statusCode).toBe(200);
      expect(json(refreshed)).not.toHaveProperty('refreshToken');
      const r2 = cookieValue(refreshCookieLine(refreshed));
      expect(r2).not.toBe(r1);
    });

    it('follows a cookie chain over several rotations', async () => {
      const { response } = await signIn(ctx, { setCookie: true });
      let current = cookieValue(refreshCookieLine(response));
      for (let i = 0; i < 3; i++) {
        const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: current } });
        expect(refreshed.statusCode, `rotation ${i + 1}`).toBe(200);
        const next = cookieValue(refreshCookieLine(refreshed));
        expect(next).not.toBe(current);
        current = next;
      }
    });

    it('revokes with the cookie: 204, the cookie is cleared, and the family is over', async () => {
      const { response } = await signIn(ctx, { setCookie: true });
      const r1 = cookieValue(refreshCookieLine(response));
      const revoke = await ctx.app.inject({ method: 'POST', url: '/auth/revoke', cookies: { [COOKIE]: r1 } });
      expect(revoke.statusCode).toBe(204);
      const line = refreshCookieLine(revoke);
      expect(cookieValue(line)).toBe('');
      const attrs = attributes(line);
      expect(attrs).toContain('path=/auth');
      expect(attrs.some((attr) => attr === 'max-age=0' || attr.startsWith('expires=thu, 01 jan 1970'))).toBe(true);
      expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: r1 } })).statusCode).toBe(401);
      expect((await refresh(ctx, r1)).statusCode).toBe(401);
    });

    it('revokes the family of a rotated cookie chain through its current cookie', async () => {
      const { response } = await signIn(ctx, { setCookie: true });
      const r1 = cookieValue(refreshCookieLine(response));
      const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: r1 } });
      const r2 = cookieValue(refreshCookieLine(refreshed));
      expect((await ctx.app.inject({ method: 'POST', url: '/auth/revoke', cookies: { [COOKIE]: r2 } })).statusCode).toBe(204);
      expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: r2 } })).statusCode).toBe(401);
    });
  });
});

describe.each(engines)('the gh.refresh cookie in production on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: PRODUCTION_ENV });

  const SECURE_COOKIE = `__Secure-${COOKIE}`;

  it('is __Secure-gh.refresh, Secure (as well as HttpOnly, SameSite=Strict, Path=/auth) at sign-in and at refresh', async () => {
    const { response } = await signIn(ctx, { setCookie: true });
    const line = refreshCookieLine(response, SECURE_COOKIE);
    expect(attributes(line)).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=strict', 'path=/auth']));
    const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [SECURE_COOKIE]: cookieValue(line) } });
    expect(refreshed.statusCode).toBe(200);
    expect(attributes(refreshCookieLine(refreshed, SECURE_COOKIE))).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=strict', 'path=/auth']));
    expect([refreshed.headers['set-cookie']].flat().join('\n')).not.toMatch(/(^|\n)gh\.refresh=/);
  });

  it('ignores an unprefixed gh.refresh cookie, which a page on plain http could have planted', async () => {
    const { response } = await signIn(ctx, { setCookie: true });
    const token = cookieValue(refreshCookieLine(response, SECURE_COOKIE));
    const planted = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', cookies: { [COOKIE]: token } });
    expect(planted.statusCode).toBe(401);
  });
});
