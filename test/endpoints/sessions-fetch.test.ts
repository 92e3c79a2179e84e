/**
 * "Where you are signed in" through the Web-standard handler (`fetchHandler`), over the services
 * of a real instance on SQLite, and the same requests through the Fastify app: the list (the
 * caller's own cookie session or token family marked current), ending one, ending the others,
 * with a cookie session and with a bearer token; the profile's form posts with their antiforgery
 * token (303) and without it (400); the browser's redirect to the profile; the refusals.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { CookieSignIn } from '../../src/endpoints/cookie-sign-in.ts';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { membershipPolicies } from '../../src/policies/membership-policies.ts';
import { sessionEndpoints } from '../../src/endpoints/sessions/session-endpoints.ts';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const origin = { origin: PUBLIC_URL };
const PROBLEM = 'application/problem+json; charset=utf-8';

interface Listed {
  readonly id: string;
  readonly kind: 'cookie' | 'token';
  readonly current: boolean;
  readonly userAgent: string | null;
}

/** The handler of the session endpoints over the instance's services, as its Fastify routes are built (under the membership group). */
function handlerOf(ctx: TestApp): FetchHandler {
  const { services } = ctx;
  const { evaluator, policies, config, sessions } = ctx.app.gatehouse;
  const endpoints = sessionEndpoints({
    sessions,
    cookies: new CookieSignIn(services),
    cookieSessions: services.sessions,
    bearerTokens: services.bearerTokens,
    paths: MembershipPaths.ROOT,
  });
  return fetchHandler(endpoints, {
    evaluator,
    policies,
    groups: [{ authorize: [{ policy: membershipPolicies.authenticated }] }],
    trustedOrigins: [config.publicUrl.origin],
    antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
  });
}

function request(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Request {
  return new Request(`${PUBLIC_URL}${path}`, init);
}

/**
 * Status, content type, location and the body (JSON, or the problem's code). `Cache-Control` is
 * compared where the endpoints set it (their answers): Fastify's response-headers plugin also puts
 * `no-store` on every refusal of a request with credentials, which fetchHandler leaves to its host.
 */
async function shapeOfFetch(response: Response) {
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), location: response.headers.get('location'), body: shapeOf(text) };
}

function shapeOfInject(response: LightMyRequestResponse) {
  return { status: response.statusCode, contentType: response.headers['content-type'] ?? null, location: response.headers.location ?? null, body: shapeOf(response.body) };
}

function shapeOf(text: string): unknown {
  if (text === '') return null;
  const body = JSON.parse(text) as unknown;
  if (Array.isArray(body)) return body.map((session: Listed) => ({ kind: session.kind, current: session.current, userAgent: session.userAgent }));
  return (body as { code?: unknown }).code;
}

/** A browser's cookie session of `email`: the Cookie header value. */
async function browser(ctx: TestApp, email: string, password: string, userAgent: string): Promise<string> {
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', headers: { 'user-agent': userAgent }, payload: { email, password } });
  expect(response.statusCode).toBe(200);
  return cookiePair(authSetCookie(response)!);
}

/** A token client of `email`: its access token. */
async function app(ctx: TestApp, email: string, password: string, userAgent: string): Promise<string> {
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'user-agent': userAgent }, payload: { email, password } });
  expect(response.statusCode).toBe(200);
  return json<{ accessToken: string }>(response).accessToken;
}

/** A user signed in from two browsers and one app. */
async function signedInThrice(ctx: TestApp) {
  const { user, password } = await ctx.createUser();
  const here = await browser(ctx, user.email, password, 'Here/1');
  const elsewhere = await browser(ctx, user.email, password, 'Elsewhere/1');
  const token = await app(ctx, user.email, password, 'App/1');
  return { user, password, here, elsewhere, token };
}

async function listed(handle: FetchHandler, headers: Record<string, string>): Promise<Listed[]> {
  const response = await handle(request('/account/sessions', { headers }));
  expect(response.status).toBe(200);
  return (await response.json()) as Listed[];
}

const byAgent = (sessions: readonly Listed[], userAgent: string) => sessions.find((session) => session.userAgent === userAgent)!;

describe('where you are signed in, through fetchHandler', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL } });

  it("lists the sessions as Fastify does, with a cookie and with a bearer token, the caller's cookie session marked current, never cached", async () => {
    const handle = handlerOf(ctx);
    const { here, token } = await signedInThrice(ctx);
    for (const headers of [{ cookie: here }, bearer(token)]) {
      const response = await handle(request('/account/sessions', { headers }));
      expect(response.headers.get('cache-control')).toBe('no-store');
      const fetched = await shapeOfFetch(response);
      expect(fetched).toEqual(shapeOfInject(await ctx.app.inject({ url: '/account/sessions', headers })));
      expect(fetched).toMatchObject({ status: 200, contentType: 'application/json; charset=utf-8' });
    }
    expect(byAgent(await listed(handle, { cookie: here }), 'Here/1').current).toBe(true);
    // Only a cookie session is marked current: a token's family is spared by revoke-others, not marked.
    expect((await listed(handle, bearer(token))).filter((session) => session.current)).toEqual([]);
  });

  it("sends a browser to the profile's section, and refuses an anonymous caller 401 and an API key 403, as Fastify does", async () => {
    const handle = handlerOf(ctx);
    const { here } = await signedInThrice(ctx);
    const cases: Record<string, string>[] = [{ accept: 'text/html', cookie: here }, {}, { 'x-api-key': await ctx.apiKey() }];
    for (const headers of cases) {
      const fetched = await shapeOfFetch(await handle(request('/account/sessions', { headers })));
      expect(fetched, JSON.stringify(headers)).toEqual(shapeOfInject(await ctx.app.inject({ url: '/account/sessions', headers })));
    }
    const redirect = await handle(request('/account/sessions', { headers: cases[0]! }));
    expect([redirect.status, redirect.headers.get('location'), redirect.headers.get('cache-control')]).toEqual([302, '/account/profile#sessions', 'no-store']);
    expect((await handle(request('/account/sessions'))).status).toBe(401);
    expect((await handle(request('/account/sessions', { headers: cases[2]! }))).status).toBe(403);
  });

  it('ends another session (204) and its cookie stops working; an unknown one is 404, as Fastify answers', async () => {
    const handle = handlerOf(ctx);
    const { here, elsewhere } = await signedInThrice(ctx);
    const other = byAgent(await listed(handle, { cookie: here }), 'Elsewhere/1');
    const ended = await handle(request(`/account/sessions/${other.id}`, { method: 'DELETE', headers: { cookie: here, ...origin } }));
    expect(ended.headers.get('cache-control')).toBe('no-store');
    expect(await shapeOfFetch(ended)).toEqual({ status: 204, contentType: null, location: null, body: null });
    expect(ended.headers.getSetCookie()).toEqual([]);
    expect((await ctx.app.inject({ url: '/account/sessions', headers: { cookie: elsewhere } })).statusCode).toBe(401);

    const again = await shapeOfFetch(await handle(request(`/account/sessions/${other.id}`, { method: 'DELETE', headers: { cookie: here, ...origin } })));
    expect(again).toMatchObject({ status: 404, contentType: PROBLEM, body: 'GH_NOT_FOUND' });
    expect(again).toEqual(shapeOfInject(await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${other.id}`, headers: { cookie: here, ...origin } })));
  });

  it("ends the caller's own cookie session like a sign-out, clearing its cookie", async () => {
    const handle = handlerOf(ctx);
    const { here } = await signedInThrice(ctx);
    const own = byAgent(await listed(handle, { cookie: here }), 'Here/1');
    const ended = await handle(request(`/account/sessions/${own.id}`, { method: 'DELETE', headers: { cookie: here, ...origin } }));
    expect(ended.status).toBe(204);
    expect(ended.headers.getSetCookie()).toEqual([expect.stringMatching(/^gh\.auth=;.*Max-Age=0/)]);
    expect((await handle(request('/account/sessions', { headers: { cookie: here } }))).status).toBe(401);
  });

  it('ends a token family with a bearer token, and the others but its own with revoke-others', async () => {
    const handle = handlerOf(ctx);
    const { user, password, here, elsewhere, token } = await signedInThrice(ctx);
    const second = await app(ctx, user.email, password, 'App/2');
    const family = byAgent(await listed(handle, bearer(token)), 'App/2');
    expect((await handle(request(`/account/sessions/${family.id}`, { method: 'DELETE', headers: bearer(token) }))).status).toBe(204);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(second) })).statusCode).toBe(401);

    const others = await handle(request('/account/sessions/revoke-others', { method: 'POST', headers: bearer(token) }));
    expect(others.headers.get('cache-control')).toBe('no-store');
    expect(await shapeOfFetch(others)).toEqual({ status: 204, contentType: null, location: null, body: null });
    for (const cookie of [here, elsewhere]) expect((await ctx.app.inject({ url: '/account/sessions', headers: { cookie } })).statusCode).toBe(401);
    expect((await listed(handle, bearer(token))).map(({ userAgent }) => userAgent)).toEqual(['App/1']);
  });

  it("takes the profile's forms with their antiforgery token (303 to the profile), refuses them without (400), as Fastify does", async () => {
    const handle = handlerOf(ctx);
    const { here, elsewhere, token } = await signedInThrice(ctx);
    const other = byAgent(await listed(handle, { cookie: here }), 'Elsewhere/1');
    const revoke = await pageForm(ctx.app, '/account/profile', `/account/sessions/${other.id}/revoke`, { cookie: here });
    const formPost = (path: string, fields: Record<string, string>, cookie = revoke.cookie) =>
      request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie, ...origin }, body: new URLSearchParams(fields).toString() });

    const forged = await shapeOfFetch(await handle(formPost(`/account/sessions/${other.id}/revoke`, {})));
    expect(forged).toMatchObject({ status: 400, contentType: PROBLEM, body: 'GH_VALIDATION_FAILED' });
    const injectedForged = await ctx.app.inject({
      method: 'POST',
      url: `/account/sessions/${other.id}/revoke`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: revoke.cookie, ...origin },
      payload: '',
    });
    expect(forged).toEqual(shapeOfInject(injectedForged));
    expect(injectedForged.body).toContain('__RequestVerificationToken');
    const forgedBody = (await (await handle(formPost(`/account/sessions/${other.id}/revoke`, {}))).json()) as { errors: Record<string, unknown> };
    expect(Object.keys(forgedBody.errors)).toEqual(['__RequestVerificationToken']);

    const ended = await handle(formPost(`/account/sessions/${other.id}/revoke`, revoke.fields));
    expect(ended.headers.get('cache-control')).toBe('no-store');
    expect(await shapeOfFetch(ended)).toEqual({ status: 303, contentType: null, location: '/account/profile?status=session-ended#sessions', body: null });
    expect((await ctx.app.inject({ url: '/account/sessions', headers: { cookie: elsewhere } })).statusCode).toBe(401);

    const everywhereElse = await pageForm(ctx.app, '/account/profile', '/account/sessions/revoke-others', { cookie: here });
    const othersEnded = await handle(formPost('/account/sessions/revoke-others', everywhereElse.fields, everywhereElse.cookie));
    expect(await shapeOfFetch(othersEnded)).toMatchObject({ status: 303, location: '/account/profile?status=sessions-ended#sessions' });
    expect((await ctx.app.inject({ url: '/me', headers: bearer(token) })).statusCode).toBe(401);
    expect((await listed(handle, { cookie: here })).map(({ userAgent }) => userAgent)).toEqual(['Here/1']);
  });

  it("sends the browser to the login page when its form ends its own session", async () => {
    const handle = handlerOf(ctx);
    const { here } = await signedInThrice(ctx);
    const own = byAgent(await listed(handle, { cookie: here }), 'Here/1');
    // The profile lists no form for the browser's own session; the form of another carries a token for this user.
    const other = byAgent(await listed(handle, { cookie: here }), 'Elsewhere/1');
    const form = await pageForm(ctx.app, '/account/profile', `/account/sessions/${other.id}/revoke`, { cookie: here });
    const ended = await handle(
      request(`/account/sessions/${own.id}/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie, ...origin },
        body: new URLSearchParams(form.fields).toString(),
      }),
    );
    expect([ended.status, ended.headers.get('location')]).toEqual([303, '/account/login']);
    expect(ended.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^gh\.auth=;.*Max-Age=0/));
  });
});
