/**
 * docs/reference/http.md, response headers (ASVS5 3.4.x, 14.3.x; CS-REST "Security headers"):
 *   - `X-Content-Type-Options: nosniff` on every answer: successes, pages, problems, the 404,
 *     Fastify's refusals before routing, GraphQL answers;
 *   - `Cache-Control: no-store` on every answer to a request that carries credentials (bearer,
 *     API key, cookie) or to an endpoint that needs or issues them (`/me`, `/admin/*`, `/graphql`,
 *     `/auth/*`, `/account/*`), refusals included, so that no shared cache or browser history keeps
 *     an answer about someone; public answers asked for without credentials (the JWKS) stay
 *     cacheable;
 *   - `Strict-Transport-Security` on every answer in production, and not in development (where
 *     PUBLIC_URL may be plain http).
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.ts';
import { authSetCookie, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { userWithAuthenticator } from '../helpers/two-factor.ts';

const [sqlite] = await testEngines();

const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://id.example.com',
  KEYRING_SECRET: 'production-keyring-secret-for-tests-0123456789',
  SMTP_URL: 'smtp://user:pass@127.0.0.1:2525',
};

type Request = { readonly label: string; readonly response: LightMyRequestResponse };

/** One answer of each kind the service gives, with and without credentials. */
async function answers(instance: TestApp, cookieName = 'gh.auth'): Promise<{ credentialed: Request[]; public: Request[] }> {
  const { app } = instance;
  const { user } = await instance.createUser({ roles: ['Admin'] });
  const token = bearer(await instance.tokenFor(user));
  const apiKey = { 'x-api-key': await instance.apiKey() };
  const { cookie } = await signInWithCookie(instance, { cookieName });
  const inject = async (label: string, options: InjectOptions): Promise<Request> => ({ label, response: await app.inject(options) });
  const graphqlPost = { method: 'POST' as const, url: '/graphql', payload: { query: '{ posts(first: 1) { id } }' } };
  return {
    credentialed: [
      await inject('GET /me with a bearer token', { url: '/me', headers: token }),
      await inject('GET /me without credentials (401)', { url: '/me' }),
      await inject('GET /me with a bad token (401)', { url: '/me', headers: bearer('not-a-token') }),
      await inject('GET /admin/users with a bearer token', { url: '/admin/users', headers: token }),
      await inject('GET /admin/users/x (400)', { url: '/admin/users/x', headers: token }),
      await inject('GET /integrations/whoami with an API key', { url: '/integrations/whoami', headers: apiKey }),
      await inject('POST /graphql anonymous', graphqlPost),
      await inject('POST /graphql with a bearer token', { ...graphqlPost, headers: token }),
      await inject('GET /graphql anonymous', { url: '/graphql?query=%7B__typename%7D' }),
      await inject('POST /graphql with a syntax error (400)', { ...graphqlPost, payload: { query: '{' } }),
      await inject('POST /auth/token (401)', { method: 'POST', url: '/auth/token', payload: { email: user.email, password: 'wrong' } }),
      await inject('POST /auth/refresh (401)', { method: 'POST', url: '/auth/refresh' }),
      await inject('GET /account/login (JSON)', { url: '/account/login' }),
      await inject('GET /account/login (page)', { url: '/account/login', headers: { accept: 'text/html' } }),
      await inject('GET /account/profile with the cookie', { url: '/account/profile', headers: { cookie } }),
      await inject('GET /health with a cookie', { url: '/health', headers: { cookie } }),
      await inject('GET /.well-known/jwks.json with a cookie', { url: '/.well-known/jwks.json', headers: { cookie } }),
      await inject('GET /nowhere with a bearer token (404)', { url: '/nowhere', headers: token }),
    ],
    public: [
      await inject('GET /health', { url: '/health' }),
      await inject('GET /.well-known/jwks.json', { url: '/.well-known/jwks.json' }),
      await inject('GET /nowhere (404)', { url: '/nowhere' }),
      await inject('GET /%zz (a bad URL, refused before routing)', { url: '/%zz' }),
    ],
  };
}

describe.runIf(sqlite)('response headers (docs/reference/http.md)', () => {
  let development: TestApp;
  let production: TestApp;

  beforeAll(async () => {
    development = await startTestApp(await sqlite!.createDatabaseUrl());
    production = await startTestApp(await sqlite!.createDatabaseUrl(), { env: PRODUCTION });
  });
  afterAll(async () => {
    await development?.close();
    await production?.close();
    await sqlite?.dropAll();
  });

  it('puts X-Content-Type-Options: nosniff on every answer', async () => {
    const { credentialed, public: open } = await answers(development);
    for (const { label, response } of [...credentialed, ...open]) expect(response.headers['x-content-type-options'], label).toBe('nosniff');
  });

  it('puts Cache-Control: no-store on every answer to a request with credentials or for an endpoint that needs or issues them', async () => {
    const { credentialed } = await answers(development);
    for (const { label, response } of credentialed) expect(response.headers['cache-control'], label).toBe('no-store');
  });

  it('puts nosniff on /health and the JWKS over a real socket too, HEAD included', async () => {
    const base = await development.app.listen({ host: '127.0.0.1', port: 0 });
    for (const path of ['/health', '/.well-known/jwks.json']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(`${base}${path}`, { method });
        await response.arrayBuffer();
        expect(response.status, `${method} ${path}`).toBe(200);
        expect(response.headers.get('x-content-type-options'), `${method} ${path}`).toBe('nosniff');
      }
    }
  });

  it('answers the password step of a two-factor sign-in, which sets gh.twofactor, with no-store: JSON 200 and form 303', async () => {
    const { email, password } = await userWithAuthenticator(development, systemClock);
    // No Cookie header: the endpoint's own no-store, not the one any credentialed request gets.
    const asJson = await development.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
    expect(asJson.statusCode).toBe(200);
    expect(json(asJson)).toEqual({ succeeded: false, requiresTwoFactor: true });
    expect(authSetCookie(asJson, 'gh.twofactor')).toBeDefined();
    expect(asJson.headers['cache-control']).toBe('no-store');

    const login = await pageForm(development.app, '/account/login', '/account/login');
    const asForm = await login.submit({ origin: development.app.gatehouse.config.publicUrl.origin }, { email, password });
    expect(asForm.statusCode).toBe(303);
    expect(asForm.headers.location).toBe('/account/login/2fa');
    expect(authSetCookie(asForm, 'gh.twofactor')).toBeDefined();
    expect(asForm.headers['cache-control']).toBe('no-store');
  });

  it('leaves public answers to requests without credentials cacheable', async () => {
    const { public: open } = await answers(development);
    const jwks = open.find(({ label }) => label === 'GET /.well-known/jwks.json')!;
    expect(jwks.response.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const health = open.find(({ label }) => label === 'GET /health')!;
    expect(health.response.headers['cache-control']).toBeUndefined();
  });

  it('answers Fastify’s refusals before routing as problem+json', async () => {
    const { public: open } = await answers(development);
    const badUrl = open.find(({ label }) => label.startsWith('GET /%zz'))!.response;
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(badUrl.body)).toMatchObject({ status: 400, code: 'GH_VALIDATION_FAILED', errors: { url: [expect.any(String)] } });
  });

  it('adds Strict-Transport-Security to every answer in production, and not in development', async () => {
    const inProduction = await answers(production, '__Host-gh.auth');
    for (const { label, response } of [...inProduction.credentialed, ...inProduction.public]) {
      expect(response.headers['strict-transport-security'], label).toBe('max-age=31536000; includeSubDomains');
    }
    const inDevelopment = await answers(development);
    for (const { label, response } of [...inDevelopment.credentialed, ...inDevelopment.public]) {
      expect(response.headers['strict-transport-security'], label).toBeUndefined();
    }
  });
});
