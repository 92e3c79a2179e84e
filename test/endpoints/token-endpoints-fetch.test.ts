/**
 * The token endpoints through the Web-standard handler (`fetchHandler`), over the services of a
 * real instance on SQLite: JWKS, `/auth/token` (200 with tokens; a wrong password 401
 * GH_SIGNIN_FAILED), `/auth/refresh` (rotation; a reused token 401), with a raw body and with a
 * body the host parsed already, and the same status, content type and body shape as the Fastify
 * host gives for the same requests. And one endpoint definition mounted on Fastify behind
 * Gatehouse's pipeline and through fetchHandler gives the same 200, 401 and 403.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configFromSettings } from '../../src/config/settings.ts';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { defineEndpoint, type EndpointRequest } from '../../src/endpoints/endpoint.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';
import { gatehouse, serverOptions } from '../../src/http/app.ts';
import { tokenEndpoints } from '../../src/endpoints/tokens/token-endpoints.ts';
import { registerEndpoints } from '../../src/http/endpoint-route.ts';
import { testEngines } from '../helpers/databases.ts';
import { type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** A Web request to the handler, its body as JSON text. */
function post(path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://gh.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Status, content type and the body's keys (or its problem code): what both hosts must agree on. */
async function shapeOfFetch(response: Response) {
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: shapeOf(text) };
}

function shapeOfInject(response: LightMyRequestResponse) {
  return { status: response.statusCode, contentType: response.headers['content-type'] ?? null, body: shapeOf(response.body) };
}

function shapeOf(text: string): unknown {
  if (text === '') return null;
  const body = JSON.parse(text) as Record<string, unknown>;
  return typeof body.code === 'string' ? body : Object.keys(body).sort();
}

describe('the token endpoints through fetchHandler', () => {
  const ctx = useTestApp(sqlite!);
  let handle: FetchHandler;

  const tokenServices = () => {
    const { services } = ctx;
    return { config: ctx.app.gatehouse.config, keyRing: services.keyRing, signIn: services.signIn, refreshTokens: services.refreshTokens };
  };
  const handlerOptions = () => {
    const { services } = ctx;
    const { evaluator, policies, config } = ctx.app.gatehouse;
    const limits = { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns };
    return { evaluator, policies, limits, trustedOrigins: [config.publicUrl.origin, ...config.corsOrigins] };
  };

  beforeEach(() => {
    handle = fetchHandler(tokenEndpoints(tokenServices()), handlerOptions());
  });

  it('serves the JWKS as Fastify does', async () => {
    const response = await handle(new Request('http://gh.test/.well-known/jwks.json'));
    const injected = await ctx.app.inject({ url: '/.well-known/jwks.json' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(await response.json()).toEqual(JSON.parse(injected.body));
    expect(response.headers.get('content-type')).toBe(injected.headers['content-type']);
  });

  it('answers the right password with tokens, from a raw body and from a parsed one', async () => {
    const { user, password } = await ctx.createUser();
    const raw = await handle(post('/auth/token', { email: user.email, password }), { ip: '192.0.2.1' });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('cache-control')).toBe('no-store');
    const tokens = (await raw.json()) as Record<string, unknown>;
    expect(tokens).toMatchObject({ tokenType: 'Bearer', accessToken: expect.any(String), refreshToken: expect.any(String) });
    const parsed = await handle(post('/auth/token'), { body: { userName: user.userName ?? undefined, email: user.email, password }, ip: '192.0.2.1' });
    expect(parsed.status).toBe(200);
    const me = await ctx.app.inject({ url: '/me', headers: { authorization: `Bearer ${String(tokens.accessToken)}` } });
    expect(me.statusCode).toBe(200);
  });

  it('answers a wrong password 401 GH_SIGNIN_FAILED problem+json, as Fastify does', async () => {
    const { user } = await ctx.createUser();
    const wrong = { email: user.email, password: 'not the password' };
    const response = await handle(post('/auth/token', wrong), { ip: '192.0.2.2' });
    const injected = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: wrong });
    const fetched = await shapeOfFetch(response);
    expect(fetched).toMatchObject({ status: 401, contentType: 'application/problem+json; charset=utf-8', body: { code: 'GH_SIGNIN_FAILED', succeeded: false } });
    expect(fetched).toEqual(shapeOfInject(injected));
  });

  it('answers the same 400s as Fastify for bodies that are not valid, and 413 past the body limit', async () => {
    for (const body of [{ email: 'a@example.com' }, { email: 'a@example.com', password: 'x', extra: 1 }, { password: 'x' }]) {
      const fetched = await shapeOfFetch(await handle(post('/auth/token', body), { ip: '192.0.2.3' }));
      expect(fetched, JSON.stringify(body)).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: body })));
      expect(fetched.status).toBe(400);
    }
    const parsedBody = await shapeOfFetch(await handle(post('/auth/token'), { body: { password: 'x', extra: 1 }, ip: '192.0.2.3' }));
    expect(parsedBody).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED' } });
    const text = await handle(new Request('http://gh.test/auth/token', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }));
    expect(text.status).toBe(415);
    const stream = (bytes: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`{"password":"${'x'.repeat(bytes)}"}`));
          controller.close();
        },
      });
    const small = fetchHandler(tokenEndpoints(tokenServices()), { ...handlerOptions(), bodyLimitBytes: 1_000 });
    const undeclared = (bytes: number) => small(new Request('http://gh.test/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream(bytes), duplex: 'half' } as RequestInit));
    expect(await shapeOfFetch(await undeclared(2_000))).toMatchObject({ status: 413, body: { code: 'GH_PAYLOAD_TOO_LARGE' } });
    expect((await undeclared(10)).status).toBe(400);
    const notJson = await handle(new Request('http://gh.test/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }));
    expect((await shapeOfFetch(notJson)).body).toMatchObject({ code: 'GH_VALIDATION_FAILED', detail: 'The body is not valid JSON.' });
  });

  it('rotates a refresh token, and answers its reuse 401 with no body', async () => {
    const { user, password } = await ctx.createUser();
    const first = (await (await handle(post('/auth/token', { email: user.email, password }))).json()) as { refreshToken: string };
    const rotated = await handle(post('/auth/refresh', { refreshToken: first.refreshToken }));
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { refreshToken: string; accessToken: string };
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const reused = await handle(post('/auth/refresh'), { body: { refreshToken: first.refreshToken } });
    expect(reused.status).toBe(401);
    expect(await reused.text()).toBe('');
    // The reuse ended the family: the rotated token is refused too, on Fastify as well.
    const injected = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: second.refreshToken } });
    expect(injected.statusCode).toBe(401);
  });

  it('answers refresh requests as Fastify does: no token, a token that is not one, a rotation', async () => {
    const { user, password } = await ctx.createUser();
    const pair = async () => ((await (await handle(post('/auth/token', { email: user.email, password }))).json()) as { refreshToken: string }).refreshToken;
    const cases: [string, unknown][] = [
      ['no body', undefined],
      ['not a token', { refreshToken: 'nope' }],
      ['a rotation', { refreshToken: await pair() }],
    ];
    for (const [label, body] of cases) {
      const fetched = await shapeOfFetch(await handle(post('/auth/refresh', body)));
      const again = body === undefined || label !== 'a rotation' ? body : { refreshToken: await pair() };
      const injected = shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/auth/refresh', ...(again === undefined ? {} : { payload: again as object }) }));
      expect(fetched, label).toEqual(injected);
    }
  });

  it('takes the refresh token from the gh.refresh cookie and sets the rotated one, refusing it cross-site', async () => {
    const { user, password } = await ctx.createUser();
    const signedIn = await handle(post('/auth/token', { email: user.email, password, setCookie: true }));
    const line = signedIn.headers.getSetCookie().find((cookie) => cookie.startsWith('gh.refresh='))!;
    expect(line).toMatch(/; Path=\/auth; Expires=.*; HttpOnly; SameSite=Strict$/);
    expect(await signedIn.json()).not.toHaveProperty('refreshToken');
    const cookie = line.split(';')[0]!;
    const crossSite = await handle(post('/auth/refresh', undefined, { cookie, origin: 'https://evil.example' }));
    expect(await shapeOfFetch(crossSite)).toMatchObject({ status: 403, body: { code: 'GH_FORBIDDEN', policy: [] } });
    const rotated = await handle(post('/auth/refresh', undefined, { cookie }));
    expect(rotated.status).toBe(200);
    expect(rotated.headers.getSetCookie().some((next) => next.startsWith('gh.refresh=') && next.split(';')[0] !== cookie)).toBe(true);
  });
});

describe('the sign-in limits through fetchHandler', () => {
  const ctx = useTestApp(sqlite!, { env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '2' } });

  it('counts token requests per account and client, and refuses the third 429 with Retry-After, as Fastify does', async () => {
    const { services } = ctx;
    const { evaluator, policies, config } = ctx.app.gatehouse;
    const limits = { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns };
    const handle = fetchHandler(tokenEndpoints({ config, keyRing: services.keyRing, signIn: services.signIn, refreshTokens: services.refreshTokens }), {
      evaluator,
      policies,
      limits,
      trustedOrigins: [config.publicUrl.origin],
    });
    const guess = { email: 'Ada@Example.com', password: 'a guess' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await handle(post('/auth/token', guess), { ip: '198.51.100.7' })).status);
    expect(statuses).toEqual([401, 401, 429]);
    const refused = await handle(post('/auth/token'), { body: { ...guess, email: 'ada@example.com' }, ip: '198.51.100.7' });
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(await shapeOfFetch(refused)).toMatchObject({ status: 429, contentType: 'application/problem+json; charset=utf-8', body: { code: 'GH_RATE_LIMITED' } });
    // Another client's budget is its own; Fastify's requests count against the same budgets.
    expect((await handle(post('/auth/token', guess), { ip: '198.51.100.8' })).status).toBe(401);
    const injected = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: guess, remoteAddress: '198.51.100.8' });
    expect(injected.statusCode).toBe(401);
    const third = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: guess, remoteAddress: '198.51.100.8' });
    expect(shapeOfInject(third)).toEqual(await shapeOfFetch(await handle(post('/auth/token', guess), { ip: '198.51.100.8' })));
  });
});

describe('one endpoint definition on both hosts', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  const subjectOf = async (request: EndpointRequest) => ({ status: 200, body: { subject: request.user.subject, params: request.params } });
  const signedIn = defineEndpoint({ method: 'GET', path: '/reports/:year', authorization: { authorize: [{}] }, handle: subjectOf });
  const auditors = defineEndpoint({ method: 'GET', path: '/audits', authorization: { authorize: [{ roles: ['Auditor'] }] }, handle: subjectOf });

  /** The definitions mounted on Fastify behind Gatehouse's pipeline, and the same through fetchHandler. */
  async function bothHosts() {
    const settings = { databaseUrl: 'sqlite::memory:' };
    const app = Fastify(serverOptions(configFromSettings(settings)));
    apps.push(app);
    await app.register(gatehouse, { settings });
    registerEndpoints(app, [signedIn, auditors]);
    await app.ready();
    const { evaluator, policies, config } = app.gatehouse;
    const handle = fetchHandler([signedIn, auditors], { evaluator, policies, trustedOrigins: [config.publicUrl.origin] });
    const services = gatehouseServices(app.gatehouse);
    const user = await services.users.create({ email: 'ada@example.com', emailConfirmed: true, password: 'correct horse battery staple' });
    return { app, handle, token: (await services.accessTokens.issue(user)).token, subject: String(user.id) };
  }

  it('gives the same 200, 401 (with WWW-Authenticate) and 403 on Fastify and through fetchHandler', async () => {
    const { app, handle, token, subject } = await bothHosts();
    const cases: [string, Record<string, string>, number][] = [
      ['/reports/2025', {}, 401],
      ['/reports/2025', { authorization: 'Bearer not-a-token' }, 401],
      ['/reports/2025', { authorization: `Bearer ${token}` }, 200],
      ['/audits', { authorization: `Bearer ${token}` }, 403],
      ['/audits', { 'x-api-key': 'nope' }, 401],
    ];
    for (const [url, headers, status] of cases) {
      const label = `${url} ${JSON.stringify(headers)}`;
      const response = await handle(new Request(`http://gh.test${url}`, { headers }));
      const injected = await app.inject({ url, headers });
      expect(response.status, label).toBe(status);
      expect(response.headers.get('www-authenticate'), label).toBe(injected.headers['www-authenticate'] ?? null);
      const fetched = await shapeOfFetch(response);
      expect(fetched, label).toEqual(shapeOfInject(injected));
      if (status === 200) expect(JSON.parse(injected.body)).toEqual({ subject, params: { year: '2025' } });
    }
  });

  it('answers an unknown path 404 and a parameter that is not percent-encoding 400, as Fastify does', async () => {
    const { app, handle, token } = await bothHosts();
    const headers = { authorization: `Bearer ${token}` };
    for (const url of ['/nowhere', '/reports/%E0%A4%A']) {
      const fetched = await shapeOfFetch(await handle(new Request(`http://gh.test${url}`, { headers })));
      expect(fetched, url).toEqual(shapeOfInject(await app.inject({ url, headers })));
    }
    const decoded = await handle(new Request('http://gh.test/reports/20%2025', { headers }));
    expect(((await decoded.json()) as { params: unknown }).params).toEqual({ year: '20 25' });
  });
});
