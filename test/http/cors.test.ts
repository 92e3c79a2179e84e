/**
 * CORS (docs/reference/configuration.md): only the origins of CORS_ORIGINS may call the API from a browser, with
 * credentials; preflights are anonymous; without CORS_ORIGINS no response carries CORS headers.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const LISTED = 'https://app.example.com';
const preflight = (origin: string) => ({
  method: 'OPTIONS' as const,
  url: '/me',
  headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
});

describe.each(engines)('CORS on $engine', (engine) => {
  describe('with CORS_ORIGINS', () => {
    const ctx = useTestApp(engine, { env: { CORS_ORIGINS: `${LISTED},http://localhost:5173` } });

    it('answers a listed origin’s preflight without credentials, allowing credentials', async () => {
      const response = await ctx.app.inject(preflight(LISTED));
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(LISTED);
      expect(response.headers['access-control-allow-credentials']).toBe('true');
      expect(String(response.headers['access-control-allow-headers'])).toMatch(/authorization/i);
    });

    it('gives other origins no CORS headers, on preflights and on requests', async () => {
      const other = await ctx.app.inject(preflight('https://evil.example'));
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      expect(other.headers['access-control-allow-credentials']).toBeUndefined();
      const { user } = await ctx.createUser();
      const token = await ctx.tokenFor(user);
      const listed = await ctx.app.inject({ url: '/me', headers: { ...bearer(token), origin: LISTED } });
      expect(listed.statusCode).toBe(200);
      expect(listed.headers['access-control-allow-origin']).toBe(LISTED);
      const unlisted = await ctx.app.inject({ url: '/me', headers: { ...bearer(token), origin: 'https://evil.example' } });
      expect(unlisted.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('without CORS_ORIGINS', () => {
    const ctx = useTestApp(engine);

    it('sends no CORS headers at all', async () => {
      const response = await ctx.app.inject(preflight(LISTED));
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });
});
