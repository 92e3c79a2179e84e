/**
 * docs/reference/http.md ("authentication and the endpoint's policy run before the body is parsed or
 * validated"), SEC-85 (default deny), SEC-87 (path and method normalisation), SEC-91 (scheme
 * confusion). Pins that:
 *   - without credentials, a malformed, oversized (over BODY_LIMIT_BYTES = 1024 here) or
 *     wrongly typed body gets 401, never 400/413/415; an authenticated but forbidden caller
 *     (API key, or a user lacking the role) gets 403 before the body; a permitted caller gets
 *     the body errors 400/413/415 as problem+json;
 *   - anonymous endpoints do not evaluate credentials at all (a garbage bearer token on
 *     `/auth/token`, `/health` and the JWKS changes nothing);
 *   - every route the router knows, with each of its methods (HEAD included), answers 401 to an
 *     anonymous caller unless it is on the contract's anonymous list;
 *   - case, slash and percent-encoding variants of a protected path never answer 200
 *     anonymously; method-override and URL-rewrite headers are ignored;
 *   - an INVALID bearer token is not rescued by a valid API key: the Bearer header decides (401).
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, TEST_FRAMEWORK, useTestApp } from '../helpers/test-app.ts';
import { challengeOf, forge } from './jwt-forge.ts';

const engines = await testEngines();

const BODY_LIMIT = 1024;

/** docs/reference/http.md's anonymous endpoints (method, path pattern); everything else needs credentials. */
const ANONYMOUS: [string, RegExp][] = [
  ['GET|HEAD', /^\/health$/],
  // Readiness (docs/reference/http.md): which dependency is away, no address or message.
  ['GET|HEAD', /^\/health\/ready$/],
  ['GET|HEAD', /^\/\.well-known\/jwks\.json$/],
  ['GET|HEAD|POST', /^\/account\/login$/],
  ['GET|HEAD|POST', /^\/account\/register$/],
  ['GET|HEAD', /^\/account\/confirm-email$/],
  ['POST', /^\/account\/forgot-password$/],
  ['GET|HEAD|POST', /^\/account\/reset-password$/],
  // A new confirmation mail (docs/pages.md): answered alike for every address.
  ['GET|HEAD|POST', /^\/account\/resend-confirmation$/],
  ['POST', /^\/auth\/(token|refresh|revoke)$/],
  ['GET|HEAD', /^\/account\/external-login\/[^/]+$/],
  ['GET|HEAD', /^\/signin-[^/]+$/],
  ['GET|HEAD|POST', /^\/graphql$/],
  // Other methods on /graphql are 405 for every caller (docs/reference/http.md), before any body is read.
  ['PUT|DELETE|PATCH', /^\/graphql$/],
  ['GET|HEAD', /^\/graphiql$/],
  // GraphiQL's files, served with its page (development only): `/graphiql/assets/*`, which
  // printRoutes() draws as a wildcard right under `/graphiql`.
  ['GET|HEAD', /^\/graphiql(\/assets\/)?\*$/],
  // Anonymous to the pipeline, but they answer 401 themselves without the two-factor cookie.
  ['POST', /^\/account\/login\/(2fa|2fa\/send|recovery)$/],
  // The second step's page (docs/reference/http.md, pages), which does the same.
  ['GET|HEAD', /^\/account\/login\/2fa$/],
  // Sign-in with a passkey (docs/passkeys.md): the options and the signed challenge.
  ['POST', /^\/account\/login\/passkey(\/options)?$/],
  // The passkey script of the login page, by its content's hash (docs/pages.md).
  ['GET|HEAD', /^\/account\/assets\/passkeys\.[A-Za-z0-9_-]+\.js$/],
  // The pages' stylesheet, by its content's hash (docs/pages.md): refusal pages link it too.
  ['GET|HEAD', /^\/account\/assets\/gatehouse\.[A-Za-z0-9_-]+\.css$/],
  // An invitation's link (docs/organizations.md): what it shows, to anyone, per-IP limited.
  ['GET|HEAD', /^\/account\/invitations\/[^/]+$/],
  // The OpenAPI document, where the application turns it on (development, in the reference service).
  ['GET|HEAD', /^\/openapi\.json$/],
];

/** The protected routes of the first issue, as the brief lists them; the router must know each. */
const PROTECTED: [string, string][] = [
  ['GET', '/me'],
  ['GET', '/content/mature'],
  ['GET', '/content/premium'],
  ['GET', '/reports/daily'],
  ['POST', '/documents'],
  ['GET', '/documents/1'],
  ['PUT', '/documents/1'],
  ['DELETE', '/documents/1'],
  ['POST', '/orgs'],
  ['GET', '/orgs/1/settings'],
  ['PUT', '/orgs/1/settings'],
  ['GET', '/integrations/whoami'],
];

/** Every (method, path) the router knows, read from `printRoutes()`'s tree. */
function registeredRoutes(app: FastifyInstance): [string, string][] {
  const routes: [string, string][] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) routes.push([method, path]);
  }
  return routes;
}

function isAnonymous(method: string, path: string): boolean {
  return ANONYMOUS.some(([methods, pattern]) => methods.split('|').includes(method) && pattern.test(path));
}

describe.each(engines)('pipeline order on $engine (docs/reference/http.md, SEC-85, SEC-87, SEC-91)', (engine) => {
  const ctx = useTestApp(engine, { env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) } });

  const oversized = JSON.stringify({ title: 'big', body: 'x'.repeat(BODY_LIMIT * 2) });
  const badBodies: { label: string; headers: Record<string, string>; payload: string; status: number }[] = [
    { label: 'malformed JSON', headers: { 'content-type': 'application/json' }, payload: '{"title": "a", "body": ', status: 400 },
    { label: 'a body over BODY_LIMIT_BYTES', headers: { 'content-type': 'application/json' }, payload: oversized, status: 413 },
    { label: 'a body with no content-type', headers: {}, payload: '{"title":"a","body":"b"}', status: 415 },
    { label: 'content-type text/plain', headers: { 'content-type': 'text/plain' }, payload: '{"title":"a","body":"b"}', status: 415 },
    { label: 'content-type form-urlencoded', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'title=a&body=b', status: 415 },
  ];

  it('answers 401, not 400/413/415, to a caller without credentials whatever the body', async () => {
    for (const { label, headers, payload } of badBodies) {
      const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload });
      expect(response.statusCode, label).toBe(401);
      expect(challengeOf(response), label).toBe('Bearer');
      expect(json(response), label).not.toHaveProperty('errors');
    }
    // Also behind a 401 for an INVALID token: the token is judged first.
    for (const { label, headers, payload } of badBodies) {
      const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...headers, ...bearer('a.b.c') }, payload });
      expect(response.statusCode, `bad token, ${label}`).toBe(401);
      expect(challengeOf(response)).toMatch(/^Bearer error="invalid_token"/);
    }
  });

  it('answers 403, not 400/413/415, to an authenticated caller the policy forbids', async () => {
    const key = await ctx.apiKey('forbidden-client');
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    for (const { label, headers, payload } of badBodies) {
      const apiKey = await ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...headers, 'x-api-key': key }, payload });
      expect(apiKey.statusCode, `API key, ${label}`).toBe(403);
      expect(json(apiKey).policy).toEqual(['ApiKey']);
      // A user without the SuperAdmin role on POST /orgs.
      const orgs = await ctx.app.inject({ method: 'POST', url: '/orgs', headers: { ...headers, ...bearer(token) }, payload });
      expect(orgs.statusCode, `no role, ${label}`).toBe(403);
      expect(json(orgs)).not.toHaveProperty('errors');
    }
  });

  it('gives a permitted caller the body errors 400 / 413 / 415 as problem+json', async () => {
    const { user } = await ctx.createUser();
    const headers = bearer(await ctx.tokenFor(user));
    // text/plain has its own test below.
    for (const { label, headers: extra, payload, status } of badBodies.filter((body) => body.label !== 'content-type text/plain')) {
      const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...extra, ...headers }, payload });
      expect(response.statusCode, label).toBe(status);
      expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
      expect(json(response), label).toMatchObject({ type: expect.any(String), title: expect.any(String), status });
      if (status === 400) expect(json<{ errors: object }>(response).errors, label).toHaveProperty('body');
    }
    // The well-formed body of the same size class goes through.
    const ok = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } });
    expect(ok.statusCode).toBe(201);
  });

  it('gives a permitted caller 415 for a text/plain body on a JSON endpoint (not a 400 from parsing it as text)', async () => {
    // text/plain is the content type a cross-site form or fetch can send without a preflight;
    // a JSON endpoint must not parse it at all (SEC-120).
    const { user } = await ctx.createUser();
    const headers = bearer(await ctx.tokenFor(user));
    for (const payload of ['{"title":"a","body":"b"}', 'plain words']) {
      const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...headers, 'content-type': 'text/plain' }, payload });
      expect(response.statusCode, payload).toBe(415);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(await ctx.data.documents.find(1)).toBeNull();
  });

  it('does not evaluate credentials on anonymous endpoints', async () => {
    const { user, password } = await ctx.createUser({ userName: 'anon-endpoint-user' });
    const garbage = { authorization: 'Bearer garbage.garbage.garbage', 'x-api-key': 'ghk_junk' };
    const signIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: garbage, payload: { email: user.email, password } });
    expect(signIn.statusCode).toBe(200);
    expect(json(signIn)).toMatchObject({ tokenType: 'Bearer' });
    expect(signIn.headers['www-authenticate']).toBeUndefined();
    const failed = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: garbage, payload: { email: user.email, password: 'wrong password' } });
    expect(failed.statusCode).toBe(401);
    expect(json(failed)).toMatchObject({ succeeded: false });
    expect(failed.headers['www-authenticate']).toBeUndefined();
    const health = await ctx.app.inject({ url: '/health', headers: garbage });
    expect(health.statusCode).toBe(200);
    const jwks = await ctx.app.inject({ url: '/.well-known/jwks.json', headers: { ...garbage, authorization: 'Basic YTpi' } });
    expect(jwks.statusCode).toBe(200);
  });

  // Fastify's route table lists every route; Express and Hono have no such table to walk.
  it.skipIf(TEST_FRAMEWORK !== 'fastify')('answers 401 anonymously on every registered route that is not on the anonymous list, HEAD included (SEC-85)', async () => {
    const routes = registeredRoutes(ctx.app);
    // The enumeration works: every route of the brief is in it, with HEAD beside each GET.
    for (const [method, path] of PROTECTED) {
      const pattern = path.replace(/\/1(?=\/|$)/g, '/:id');
      expect(routes, `${method} ${pattern}`).toContainEqual([method, pattern]);
      if (method === 'GET') expect(routes, `HEAD ${pattern}`).toContainEqual(['HEAD', pattern]);
    }
    const checked: string[] = [];
    for (const [method, pattern] of routes) {
      if (isAnonymous(method, pattern)) continue;
      const url = pattern.replace(/:[A-Za-z]+/g, '1');
      const response = await ctx.app.inject({
        method: method as 'GET',
        url,
        ...(['POST', 'PUT', 'PATCH'].includes(method) ? { payload: { title: 'a', body: 'b', name: 'n', settings: {} } } : {}),
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.headers['www-authenticate'], `${method} ${url}`).toBeDefined();
      if (method === 'HEAD') expect(response.body, `${method} ${url}`).toBe('');
      checked.push(`${method} ${url}`);
    }
    expect(checked.length).toBeGreaterThanOrEqual(PROTECTED.length + 7);
    // The anonymous routes the router knows are exactly those the contract allows.
    const anonymous = routes.filter(([method, path]) => isAnonymous(method, path)).map(([method, path]) => `${method} ${path}`);
    expect(anonymous).toEqual(expect.arrayContaining(['GET /health', 'POST /auth/token', 'GET /.well-known/jwks.json']));
  });

  it('never answers 200 anonymously to case, slash or encoding variants of a protected path (SEC-87)', async () => {
    const variants = [
      '/ME', '/Me', '/me/', '//me', '/me//', '/%6De', '/%6d%65', '/./me', '/me/.', '/x/../me', '/me;x', '/me%00', '/me%2F', '/%2Fme',
      '/me?', '/me#x', '/me%20', '/ME/', '/Documents/1', '/documents/1/', '/documents//1', '/documents/%31', '/DOCUMENTS/1',
      '/integrations/WHOAMI', '/integrations//whoami', '/content/%70remium', '/orgs/1/settings/', '/orgs/1/SETTINGS',
    ];
    for (const url of variants) {
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await ctx.app.inject({ method, url });
        expect([401, 404, 400], `${method} ${url} → ${response.statusCode}`).toContain(response.statusCode);
        if (response.statusCode !== 401 && method === 'GET') {
          expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
        }
      }
    }
  });

  it('ignores method-override and URL-rewrite headers (SEC-87)', async () => {
    const { user } = await ctx.createUser();
    const headers = bearer(await ctx.tokenFor(user));
    const created = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'keep', body: 'me' } });
    const id = json(created).id as number;
    for (const override of ['x-http-method-override', 'x-http-method', 'x-method-override']) {
      const response = await ctx.app.inject({ method: 'GET', url: `/documents/${id}`, headers: { ...headers, [override]: 'DELETE' } });
      expect(response.statusCode, override).toBe(200);
      expect(json(response), override).toMatchObject({ id, title: 'keep' });
    }
    expect(await ctx.data.documents.find(id)).toMatchObject({ title: 'keep' });
    // POST /me does not exist: an override to GET does not make it /me.
    expect((await ctx.app.inject({ method: 'POST', url: '/me', headers: { ...headers, 'x-http-method-override': 'GET' } })).statusCode).toBe(404);
    // Rewrite headers do not move an anonymous request onto an anonymous route, or the reverse.
    for (const rewrite of ['x-original-url', 'x-rewrite-url', 'x-forwarded-uri', 'x-forwarded-path']) {
      const protectedCall = await ctx.app.inject({ url: '/me', headers: { [rewrite]: '/health' } });
      expect(protectedCall.statusCode, rewrite).toBe(401);
      const anonymousCall = await ctx.app.inject({ url: '/health', headers: { [rewrite]: '/me' } });
      expect(anonymousCall.statusCode, rewrite).toBe(200);
      expect(anonymousCall.body, rewrite).toBe('');
    }
  });

  it('does not fall back to a valid API key when the bearer token is invalid (SEC-91)', async () => {
    const key = await ctx.apiKey('fallback-client');
    expect((await ctx.app.inject({ url: '/me', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    for (const authorization of ['Bearer garbage.garbage.garbage', 'Bearer a.b.c', 'Bearer', `Bearer ${key}`]) {
      const response = await ctx.app.inject({ url: '/me', headers: { authorization, 'x-api-key': key } });
      expect(response.statusCode, authorization).toBe(401);
      expect(challengeOf(response), authorization).toMatch(/^Bearer error="invalid_token"/);
    }
    // Nor when the token is genuine but expired.
    const { user } = await ctx.createUser();
    const now = Math.floor(Date.now() / 1000);
    const expired = await forge(ctx, user, { claims: { iat: now - 3600, nbf: now - 3600, exp: now - 600 } });
    const response = await ctx.app.inject({ url: '/me', headers: { ...bearer(expired), 'x-api-key': key } });
    expect(response.statusCode).toBe(401);
    expect(challengeOf(response)).toMatch(/^Bearer error="invalid_token"/);
  });
});
