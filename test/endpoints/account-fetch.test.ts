/**
 * The account endpoints (endpoints/account) through the Web-standard handler (`fetchHandler`),
 * over the services of a real instance on SQLite, beside the Fastify host for the same requests:
 * the login page (CSP, antiforgery cookie) and its JSON, the JSON cookie sign-in and its 401, the
 * login form (303 to the return URL, 400 without its antiforgery token, the page again when
 * refused), sign-out, the profile (JSON, page, 403, a browser's 302 to the login page), the
 * password change by JSON and by the profile page's form, and the sign-in limits per account.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { accountEndpoints } from '../../src/endpoints/account/account-endpoints.ts';
import { antiforgeryCookieName } from '../../src/endpoints/antiforgery.ts';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { membershipPolicies } from '../../src/policies/membership-policies.ts';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { testEngines } from '../helpers/databases.ts';
import { type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const BASE = 'http://gh.test';
/** What a browser sends when the user follows a link or types the address. */
const NAVIGATION = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'sec-fetch-mode': 'navigate' };
const NEW_PASSWORD = 'a new and long enough passphrase';
const FORM = 'application/x-www-form-urlencoded';

/** The account endpoints with a real instance's services, as fetchHandler serves them with the options the Fastify app uses. */
function accountHandler(ctx: TestApp): FetchHandler {
  const { services } = ctx;
  const { evaluator, policies, config } = ctx.app.gatehouse;
  const paths = MembershipPaths.ROOT;
  const endpoints = accountEndpoints({
    config,
    clock: services.clock,
    keyRing: services.keyRing,
    pages: ctx.app.pages,
    paths,
    signIn: services.signIn,
    signOut: services.signOut,
    passwordChange: services.passwordChange,
    users: services.users,
    sessions: services.sessions,
    externalLogins: services.externalLogins,
    passkeys: null,
    userSessions: null,
  });
  return fetchHandler(endpoints, {
    evaluator,
    policies,
    groups: [{ authorize: [{ policy: membershipPolicies.authenticated }] }],
    limits: { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns },
    trustedOrigins: [config.publicUrl.origin, ...config.corsOrigins],
    antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
    loginPage: (returnUrl) => paths.loginFor(returnUrl),
    sessionCookies: { production: config.production, clock: services.clock },
    responseHeaders: { production: config.production, credentialPaths: paths.credentialPaths },
    refusalPages: { pages: ctx.app.pages, prefix: paths.prefix },
  });
}

function request(path: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {}): Request {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(init.json)];
  if (init.form !== undefined) [headers['content-type'], body] = [FORM, new URLSearchParams(init.form).toString()];
  return new Request(`${BASE}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) });
}

/** `name=value` of the cookie `name` a response sets, and its whole line. */
function setCookie(lines: readonly string[], name: string): { pair: string; line: string } | undefined {
  const line = lines.find((candidate) => candidate.startsWith(`${name}=`));
  return line === undefined ? undefined : { pair: line.split(';')[0]!, line };
}

const fetchedCookies = (response: Response) => response.headers.getSetCookie();
function injectedCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return header === undefined ? [] : [header].flat();
}

/** The hidden and text fields of the page's form that posts to `action`. */
function formFields(html: string, action: string): Record<string, string> {
  const escaped = action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const form = new RegExp(`<form method="post" action="${escaped}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  expect(form, `a form posting to ${action}`).not.toBeNull();
  const fields: Record<string, string> = {};
  for (const [tag] of form![1]!.matchAll(/<input [^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(tag)?.[1];
    if (name !== undefined && !/type="checkbox"/.test(tag)) fields[name] = (/value="([^"]*)"/.exec(tag)?.[1] ?? '').replaceAll('&amp;', '&');
  }
  return fields;
}

/** Status, content type and the body's keys (or its problem's code and status): what both hosts must agree on. */
function shapeOf(status: number, contentType: string | null, text: string) {
  if (text === '' || !contentType?.includes('json')) return { status, contentType, body: text === '' ? null : 'text' };
  const body = JSON.parse(text) as Record<string, unknown>;
  return { status, contentType, body: typeof body.code === 'string' ? { code: body.code, status: body.status } : Object.keys(body).sort() };
}
const shapeOfFetch = async (response: Response) => shapeOf(response.status, response.headers.get('content-type'), await response.text());
const shapeOfInject = (response: LightMyRequestResponse) => shapeOf(response.statusCode, String(response.headers['content-type'] ?? '') || null, response.body);

describe.runIf(sqlite)('the account endpoints through fetchHandler', () => {
  const ctx = useTestApp(sqlite!);

  /** A user signed in through fetchHandler: the auth cookie's pair. */
  async function signedIn(handle: FetchHandler) {
    const { user, password } = await ctx.createUser();
    const response = await handle(request('/account/login', { json: { email: user.email, password } }));
    expect(response.status).toBe(200);
    return { user, password, cookie: setCookie(fetchedCookies(response), 'gh.auth')!.pair };
  }

  it('serves the login page to a browser with its CSP and antiforgery cookie, and the providers to an API client, as Fastify does', async () => {
    const handle = accountHandler(ctx);
    const url = '/account/login?ReturnUrl=%2Fdocuments%2F7';
    const page = await handle(request(url, { headers: NAVIGATION }));
    const injected = await ctx.app.inject({ url, headers: NAVIGATION });
    expect(page.status).toBe(200);
    for (const header of ['content-type', 'content-security-policy', 'cache-control', 'x-frame-options', 'x-content-type-options', 'referrer-policy']) {
      expect(page.headers.get(header), header).toBe(injected.headers[header]);
    }
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    const antiforgery = setCookie(fetchedCookies(page), antiforgeryCookieName(false))!;
    expect(antiforgery.line).toMatch(/; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(setCookie(injectedCookies(injected), antiforgeryCookieName(false))).toBeDefined();
    const html = await page.text();
    expect(formFields(html, '/account/login?ReturnUrl=%2Fdocuments%2F7').__RequestVerificationToken).toMatch(/.{20}/);

    const api = await handle(request('/account/login', { headers: { accept: 'application/json' } }));
    expect(await api.json()).toEqual({ providers: [] });
    expect(fetchedCookies(api)).toEqual([]);
    expect(await shapeOfFetch(await handle(request('/account/login')))).toEqual(shapeOfInject(await ctx.app.inject({ url: '/account/login' })));
  });

  it('signs in over JSON with the auth cookie and {succeeded:true}, and answers a wrong password 401 GH_SIGNIN_FAILED, as Fastify does', async () => {
    const handle = accountHandler(ctx);
    const { user, password } = await ctx.createUser();
    const response = await handle(request('/account/login', { json: { email: user.email, password } }), { ip: '192.0.2.10' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const auth = setCookie(fetchedCookies(response), 'gh.auth')!;
    expect(auth.line).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await response.json()).toEqual({ succeeded: true });
    const injected = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    expect(injected.json()).toEqual({ succeeded: true });
    expect(setCookie(injectedCookies(injected), 'gh.auth')!.line.replace(/^[^;]*/, '')).toBe(auth.line.replace(/^[^;]*/, ''));
    // The cookie is a session on either host.
    const me = await handle(request('/account/profile', { headers: { cookie: auth.pair } }));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(user.email);

    const wrong = { email: user.email, password: 'not the password' };
    const refused = await handle(request('/account/login', { json: wrong }));
    expect(fetchedCookies(refused)).toEqual([]);
    const fetched = await shapeOfFetch(refused);
    expect(fetched).toEqual({ status: 401, contentType: 'application/problem+json; charset=utf-8', body: { code: 'GH_SIGNIN_FAILED', status: 401 } });
    expect(fetched).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/login', payload: wrong })));
  });

  it('takes the login form with its antiforgery token: 303 to the return URL; refuses it 400 without the token, and shows the page again when the sign-in fails', async () => {
    const handle = accountHandler(ctx);
    const { user, password } = await ctx.createUser();
    const url = '/account/login?ReturnUrl=%2Fdocuments%2F7';
    const page = await handle(request(url, { headers: NAVIGATION }));
    const fields = formFields(await page.text(), url);
    const cookie = setCookie(fetchedCookies(page), antiforgeryCookieName(false))!.pair;
    const post = (form: Record<string, string>, headers: Record<string, string> = { cookie }) => handle(request(url, { headers: { accept: 'text/html', ...headers }, form }));

    const done = await post({ ...fields, email: user.email, password });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/documents/7');
    expect(done.headers.get('cache-control')).toBe('no-store');
    expect(setCookie(fetchedCookies(done), 'gh.auth')).toBeDefined();

    const forged = await post({ email: user.email, password }, {});
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { errors: object }).errors).toHaveProperty('__RequestVerificationToken');
    expect(setCookie(fetchedCookies(forged), 'gh.auth')).toBeUndefined();

    const failed = await post({ ...fields, email: user.email, password: 'not the password' });
    expect(failed.status).toBe(401);
    expect(failed.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const again = await failed.text();
    expect(again).toContain('Invalid sign-in attempt.');
    expect(again).toContain(`value="${user.email}"`);
    expect(setCookie(fetchedCookies(failed), 'gh.auth')).toBeUndefined();

    // A body that fails validation gets the page too, at 400, on both hosts.
    const invalid = await post({ ...fields, email: user.email });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const injected = await ctx.app.inject({ method: 'POST', url, headers: { 'content-type': FORM, cookie }, payload: new URLSearchParams({ ...fields, email: user.email }).toString() });
    expect([injected.statusCode, injected.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
  });

  it('signs out: 204 clearing the cookie, which is anonymous afterwards; a form goes to the login page', async () => {
    const handle = accountHandler(ctx);
    const { cookie } = await signedIn(handle);
    const out = await handle(request('/account/logout', { method: 'POST', headers: { cookie } }));
    expect(out.status).toBe(204);
    expect(out.headers.get('cache-control')).toBe('no-store');
    expect(setCookie(fetchedCookies(out), 'gh.auth')!.line).toMatch(/^gh\.auth=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
    expect((await handle(request('/account/profile', { headers: { cookie } }))).status).toBe(401);
    expect((await handle(request('/account/logout', { method: 'POST' }))).status).toBe(401);

    const again = await signedIn(handle);
    const profile = await handle(request('/account/profile', { headers: { ...NAVIGATION, cookie: again.cookie } }));
    const fields = formFields(await profile.text(), '/account/logout');
    const cookies = `${again.cookie}; ${setCookie(fetchedCookies(profile), antiforgeryCookieName(false))!.pair}`;
    const origin = ctx.app.gatehouse.config.publicUrl.origin;
    const formOut = await handle(request('/account/logout', { headers: { cookie: cookies, origin }, form: fields }));
    expect(formOut.status).toBe(303);
    expect(formOut.headers.get('location')).toBe('/account/login');
    expect((await handle(request('/account/profile', { headers: { cookie: again.cookie } }))).status).toBe(401);
  });

  it('describes the signed-in user as Fastify does, refuses an API-key caller 403, and sends a browser without a cookie to the login page', async () => {
    const handle = accountHandler(ctx);
    const { user, cookie } = await signedIn(handle);
    const fetched = await handle(request('/account/profile', { headers: { cookie } }));
    const injected = await ctx.app.inject({ url: '/account/profile', headers: { cookie } });
    expect(fetched.headers.get('cache-control')).toBe('no-store');
    expect(await fetched.json()).toEqual(injected.json());
    expect(injected.json()).toMatchObject({ id: user.id, email: user.email, logins: [] });

    const key = { 'x-api-key': await ctx.apiKey() };
    const forbidden = await shapeOfFetch(await handle(request('/account/profile', { headers: key })));
    expect(forbidden).toMatchObject({ status: 403, body: { code: 'GH_FORBIDDEN' } });
    expect(forbidden).toEqual(shapeOfInject(await ctx.app.inject({ url: '/account/profile', headers: key })));

    const browser = await handle(request('/account/profile?status=x', { headers: NAVIGATION }));
    const browserInjected = await ctx.app.inject({ url: '/account/profile?status=x', headers: NAVIGATION });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/account/login?ReturnUrl=%2Faccount%2Fprofile%3Fstatus%3Dx');
    expect(browser.headers.get('location')).toBe(browserInjected.headers.location);
    expect((await handle(request('/account/profile', { headers: { accept: 'application/json' } }))).status).toBe(401);
  });

  it('changes the password over JSON, re-issuing the asking session’s cookie, and refuses a wrong current password 400, as Fastify does', async () => {
    const handle = accountHandler(ctx);
    const { user, password, cookie } = await signedIn(handle);
    const other = await handle(request('/account/login', { json: { email: user.email, password } }));
    const otherCookie = setCookie(fetchedCookies(other), 'gh.auth')!.pair;

    const wrong = { currentPassword: 'not the password', newPassword: NEW_PASSWORD };
    const refused = await shapeOfFetch(await handle(request('/account/password', { headers: { cookie }, json: wrong })));
    expect(refused).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED' } });
    expect(refused).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/password', headers: { cookie }, payload: wrong })));

    const changed = await handle(request('/account/password', { headers: { cookie }, json: { currentPassword: password, newPassword: NEW_PASSWORD } }));
    expect(changed.status).toBe(204);
    expect(changed.headers.get('cache-control')).toBe('no-store');
    const renewed = setCookie(fetchedCookies(changed), 'gh.auth')!.pair;
    expect(renewed).not.toBe(cookie);
    expect((await handle(request('/account/profile', { headers: { cookie: renewed } }))).status).toBe(200);
    expect((await handle(request('/account/profile', { headers: { cookie } }))).status).toBe(401);
    expect((await handle(request('/account/profile', { headers: { cookie: otherCookie } }))).status).toBe(401);
  });

  it('takes the profile page’s password form: the page again with the error, then 303 back to the profile with a re-issued cookie', async () => {
    const handle = accountHandler(ctx);
    const { password, cookie } = await signedIn(handle);
    const profile = await handle(request('/account/profile', { headers: { ...NAVIGATION, cookie } }));
    expect(profile.status).toBe(200);
    const fields = formFields(await profile.text(), '/account/password');
    const cookies = `${cookie}; ${setCookie(fetchedCookies(profile), antiforgeryCookieName(false))!.pair}`;
    const headers = { cookie: cookies, origin: ctx.app.gatehouse.config.publicUrl.origin, accept: 'text/html' };

    const failed = await handle(request('/account/password', { headers, form: { ...fields, currentPassword: 'wrong', newPassword: NEW_PASSWORD } }));
    expect(failed.status).toBe(400);
    expect(failed.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await failed.text()).toContain('The current password is wrong.');

    const done = await handle(request('/account/password', { headers, form: { ...fields, currentPassword: password, newPassword: NEW_PASSWORD } }));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/account/profile?status=password-changed');
    const renewed = setCookie(fetchedCookies(done), 'gh.auth')!.pair;
    expect(renewed).not.toBe(cookie);
    const notice = await handle(request('/account/profile?status=password-changed', { headers: { ...NAVIGATION, cookie: renewed } }));
    expect(await notice.text()).toContain('Your password is changed.');
  });
});

describe.runIf(sqlite)('the account endpoints’ limits through fetchHandler', () => {
  const ctx = useTestApp(sqlite!, { env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '2' } });

  it('counts sign-ins per account and client, and password changes per signed-in user, refusing the third 429 with Retry-After', async () => {
    const handle = accountHandler(ctx);
    const guess = { email: 'Ada@Example.com', password: 'a guess' };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await handle(request('/account/login', { json: guess }), { ip: '198.51.100.7' })).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await handle(request('/account/login', { json: guess }), { ip: '198.51.100.8' })).status).toBe(401);

    const { user, password } = await ctx.createUser();
    const signedIn = await handle(request('/account/login', { json: { email: user.email, password } }), { ip: '198.51.100.9' });
    const cookie = setCookie(fetchedCookies(signedIn), 'gh.auth')!.pair;
    const wrong = { currentPassword: 'not the password', newPassword: NEW_PASSWORD };
    const changes: number[] = [];
    for (let i = 0; i < 2; i++) changes.push((await handle(request('/account/password', { headers: { cookie }, json: wrong }), { ip: '198.51.100.9' })).status);
    const limited = await handle(request('/account/password', { headers: { cookie }, json: wrong }), { ip: '198.51.100.9' });
    expect([...changes, limited.status]).toEqual([400, 400, 429]);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(await shapeOfFetch(limited)).toMatchObject({ body: { code: 'GH_RATE_LIMITED' } });
  });
});
