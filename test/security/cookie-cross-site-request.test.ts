/**
 * Cross-site request forgery against the cookie scheme (docs/reference/http.md; SEC-101's HTTP side):
 * an unsafe request the auth cookie authenticates is refused with 403 unless its Origin is the
 * PUBLIC_URL origin or one of CORS_ORIGINS; `Origin: null` is refused; without Origin it passes
 * only when Sec-Fetch-Site is absent, same-origin or none. Nothing changes on a refusal.
 * Callers with a bearer token or an API key are not subject to it. On each store engine.
 */
import { describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

const PUBLIC_URL = 'http://gatehouse.test:8080';
const TRUSTED_APP = 'https://app.example.com';

describe.each(engines)('cross-site requests with the auth cookie on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { PUBLIC_URL, CORS_ORIGINS: TRUSTED_APP } });
  const createDocument = (headers: Record<string, string>) =>
    ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'Minutes', body: 'Nothing happened.' } });

  const refused: [string, Record<string, string>][] = [
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['Origin: null (sandboxed frame, data: URL)', { origin: 'null' }],
    ['a look-alike of the public origin', { origin: 'http://gatehouse.test' }],
    ['Sec-Fetch-Site: cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site without Origin', { 'sec-fetch-site': 'same-site' }],
  ];

  for (const [name, headers] of refused) {
    it(`refuses ${name} with 403 problem+json, and creates nothing`, async () => {
      const { user, cookie } = await signInWithCookie(ctx);
      const response = await createDocument({ cookie, ...headers });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(json(response)).toMatchObject({ title: 'Forbidden', status: 403, policy: ['Cookies'] });
      // The refused request never reached the endpoint: the first document created gets id 1.
      const next = await createDocument({ ...bearer(await ctx.tokenFor(user)) });
      expect(json(next).id).toBe(1);
    });
  }

  const allowed: [string, Record<string, string>][] = [
    ['the public origin', { origin: PUBLIC_URL }],
    ['an origin in CORS_ORIGINS', { origin: TRUSTED_APP }],
    ['Sec-Fetch-Site: same-origin without Origin', { 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site: none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ['a non-browser client sending neither', {}],
  ];

  for (const [name, headers] of allowed) {
    it(`lets ${name} through`, async () => {
      const { cookie } = await signInWithCookie(ctx);
      expect((await createDocument({ cookie, ...headers })).statusCode).toBe(201);
    });
  }

  it('does not let a cross-site page sign the user out', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const logout = await ctx.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie, origin: 'https://evil.example' } });
    expect(logout.statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(200);
  });

  it('lets cross-site GETs through: they change nothing', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const response = await ctx.app.inject({ url: '/account/profile', headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(response.statusCode).toBe(200);
  });

  it('does not apply to bearer and API-key callers, whom a browser cannot send cross-site', async () => {
    const { user } = await ctx.createUser();
    const withBearer = await createDocument({ ...bearer(await ctx.tokenFor(user)), origin: 'https://evil.example' });
    expect(withBearer.statusCode).toBe(201);
  });
});
