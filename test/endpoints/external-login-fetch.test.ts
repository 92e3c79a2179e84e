/**
 * External sign-in through the Web-standard handler (`fetchHandler`) and through the Fastify app,
 * over the services of a real instance on SQLite and a real OpenID provider on loopback
 * (oidc-provider), whose redirects are followed with fetch: the start (302 to the provider with
 * PKCE, state and nonce, and the sealed correlation cookie; 404 for no such provider, 502 for one
 * out of reach); a callback without the correlation cookie, with another state or with the
 * provider's error, refused the same way on both hosts; a whole sign-in through fetchHandler,
 * whose replay Fastify refuses; linking from the profile (JSON and the page's form with its
 * antiforgery token) and unlinking; and linking refused 403 GH_REAUTHENTICATION_REQUIRED (the
 * form: to the login page) after an old sign-in.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { externalLoginEndpoints } from '../../src/endpoints/external-login/external-login-endpoints.ts';
import type { EndpointLog } from '../../src/endpoints/endpoint.ts';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { membershipPolicies } from '../../src/policies/membership-policies.ts';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestProvider } from '../helpers/oidc-provider.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const CLIENT_IP = '192.0.2.40';
/** The default REAUTH_MINUTES, and a moment past it. */
const STALE_MS = 5 * 60_000 + 1_000;

const provider = await startTestProvider(`${PUBLIC_URL}/signin-acme`);
afterAll(() => provider.close());

const ENV = {
  PUBLIC_URL,
  OIDC_ACME_ISSUER: provider.issuer,
  OIDC_ACME_CLIENT_ID: provider.clientId,
  OIDC_ACME_CLIENT_SECRET: provider.clientSecret,
  OIDC_ACME_TRUST_EMAIL: 'true',
  // Nothing listens on port 9: discovery fails at once.
  OIDC_GONE_ISSUER: 'http://127.0.0.1:9',
  OIDC_GONE_CLIENT_ID: 'x',
  OIDC_GONE_CLIENT_SECRET: 'y',
};

/** One answer, from either host, in the terms both must agree on. */
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Set-Cookie lines. */
  readonly cookies: readonly string[];
  readonly body: string;
}

async function fromFetch(response: Response): Promise<Answer> {
  const headers = Object.fromEntries(['content-type', 'cache-control', 'location'].map((name) => [name, response.headers.get(name) ?? undefined]));
  return { status: response.status, headers, cookies: response.headers.getSetCookie(), body: await response.text() };
}

function fromInject(response: LightMyRequestResponse): Answer {
  const header = (name: string) => response.headers[name] as string | undefined;
  const lines = response.headers['set-cookie'];
  const cookies = lines === undefined ? [] : Array.isArray(lines) ? lines : [lines];
  return { status: response.statusCode, headers: { 'content-type': header('content-type'), 'cache-control': header('cache-control'), location: header('location') }, cookies, body: response.body };
}

/**
 * What both hosts must give alike: the status, the body's type, no-store, where the browser is
 * sent (a provider's URL without its fresh state and challenge), each cookie's name, whether it
 * is set or cleared and its attributes, and a problem's code and reason.
 */
function contract({ status, headers, cookies, body }: Answer) {
  const location = headers.location === undefined ? undefined : redirectTarget(headers.location);
  const problem = headers['content-type']?.startsWith('application/problem+json') ? (JSON.parse(body) as { code: string; reason?: string }) : undefined;
  return {
    status,
    contentType: headers['content-type'],
    noStore: headers['cache-control'] === 'no-store',
    location,
    cookies: cookies.map(cookieShape).sort(),
    problem: problem && { code: problem.code, reason: problem.reason },
    page: headers['content-type']?.startsWith('text/html') ?? false,
  };
}

function redirectTarget(location: string): string {
  if (location.startsWith('/')) return location;
  const url = new URL(location);
  return `${url.origin}${url.pathname}?${[...url.searchParams.keys()].sort().join('&')}`;
}

/** `name=(set|cleared); attributes…`, the attributes in lower case and order, an expiry's date left out. */
function cookieShape(line: string): string {
  const [pair, ...attributes] = line.split(/;\s*/);
  const [name, value] = pair!.split('=');
  const kept = attributes.map((attribute) => attribute.toLowerCase()).filter((attribute) => !attribute.startsWith('expires='));
  return [`${name}=${value === '' ? 'cleared' : 'set'}`, ...kept.sort()].join('; ');
}

const setCookieOf = (answer: Answer, name: string) => answer.cookies.find((line) => line.startsWith(`${name}=`));

/** The external sign-in endpoints and fetchHandler over the services of `ctx`'s instance, as Fastify mounts them. */
function externalLoginHost(ctx: TestApp, log: EndpointLog = { error: () => undefined, warn: () => undefined }): FetchHandler {
  const { services } = ctx;
  const { evaluator, policies, config } = ctx.app.gatehouse;
  const paths = MembershipPaths.ROOT;
  const { clock, keyRing, recentSignIn, bearerTokens, sessions, providerSignIn, externalLogins, users } = services;
  const endpoints = externalLoginEndpoints({ config, clock, keyRing, recentSignIn, bearerTokens, sessions, paths, providerSignIn, externalLogins, users, pages: ctx.app.pages });
  return fetchHandler(endpoints, {
    evaluator,
    policies,
    // Gatehouse's own routes need an authenticated caller unless they say otherwise.
    groups: [{ authorize: [{ policy: membershipPolicies.authenticated }] }],
    limits: { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns },
    trustedOrigins: [config.publicUrl.origin],
    loginPage: (returnUrl) => paths.loginFor(returnUrl),
    antiforgery: { secret: keyRing.secrets.antiforgery, production: config.production },
    log,
    responseHeaders: { production: config.production, credentialPaths: paths.credentialPaths },
    refusalPages: { pages: ctx.app.pages, prefix: paths.prefix },
  });
}

const request = (path: string, init: RequestInit = {}) => new Request(`${PUBLIC_URL}${path}`, init);

describe.runIf(sqlite)('external sign-in through fetchHandler', () => {
  const ctx = useTestApp(sqlite!, { env: ENV });

  /** Starts a flow through fetchHandler and signs `account` in at the provider: the callback URL and the correlation cookie. */
  async function throughProvider(handle: FetchHandler, account: string, start: Request = request('/account/external-login/acme')) {
    const started = await fromFetch(await handle(start, { ip: CLIENT_IP }));
    expect(started.status).toBe(302);
    const correlation = cookiePair(setCookieOf(started, 'gh.oidc')!);
    return { started, correlation, back: await provider.authorize(started.headers.location!, account) };
  }
  const callbackThroughFetch = (handle: FetchHandler, back: URL, cookie: string, accept = 'application/json') =>
    handle(request(`${back.pathname}${back.search}`, { headers: { cookie, accept } }), { ip: CLIENT_IP }).then(fromFetch);
  const callbackThroughFastify = (back: URL, cookie: string | undefined, accept = 'application/json') =>
    ctx.app.inject({ url: `${back.pathname}${back.search}`, headers: { accept, ...(cookie === undefined ? {} : { cookie }) } }).then(fromInject);

  it('starts a sign-in as Fastify does: 302 to the provider with PKCE, state and nonce, and the sealed correlation cookie', async () => {
    const handle = externalLoginHost(ctx);
    const path = '/account/external-login/acme?returnUrl=%2Fdocuments';
    const fetched = await fromFetch(await handle(request(path), { ip: CLIENT_IP }));
    const injected = fromInject(await ctx.app.inject({ url: path }));
    expect(contract(fetched)).toEqual(contract(injected));
    expect(contract(fetched)).toMatchObject({
      status: 302,
      noStore: true,
      location: `${provider.issuer}/auth?client_id&code_challenge&code_challenge_method&nonce&redirect_uri&response_type&scope&state`,
      cookies: ['gh.oidc=set; httponly; max-age=600; path=/; samesite=lax'],
    });
    const location = new URL(fetched.headers.location!);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/signin-acme`);
    // Each start is a flow of its own.
    expect(location.searchParams.get('state')).not.toBe(new URL(injected.headers.location!).searchParams.get('state'));
  });

  it('answers no such provider 404 and one out of reach 502 (logged as a warning), as Fastify does', async () => {
    const warnings: string[] = [];
    const handle = externalLoginHost(ctx, { error: () => undefined, warn: (_details, message) => void warnings.push(message) });
    for (const [path, status, code] of [
      ['/account/external-login/unknown', 404, 'GH_NOT_FOUND'],
      ['/account/external-login/gone', 502, 'GH_EXTERNAL_PROVIDER_UNAVAILABLE'],
      ['/signin-unknown?code=x&state=y', 404, 'GH_NOT_FOUND'],
    ] as const) {
      const fetched = contract(await fromFetch(await handle(request(path), { ip: CLIENT_IP })));
      expect(fetched, path).toMatchObject({ status, problem: { code } });
      expect(fetched, path).toEqual(contract(fromInject(await ctx.app.inject({ url: path }))));
    }
    expect(warnings).toEqual(['external sign-in could not start']);
  });

  it('refuses a callback without the correlation cookie, with another state or with the provider’s error the same way on both hosts', async () => {
    const handle = externalLoginHost(ctx);
    provider.accounts.set('tamper', { email: 'tamper@example.com', emailVerified: true });
    const { correlation, back } = await throughProvider(handle, 'tamper');
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'not-the-state');
    const denied = new URL(`${PUBLIC_URL}/signin-acme?error=access_denied&state=x`);
    const cases: [string, URL, string | undefined, string, string][] = [
      ['no cookie', back, undefined, 'application/json', 'no-correlation'],
      ['no cookie, a browser', back, undefined, 'text/html', 'no-correlation'],
      ['another state', tampered, correlation, 'application/json', 'correlation-spent-or-mismatched'],
      ['another state, a browser', tampered, correlation, 'text/html', 'correlation-spent-or-mismatched'],
      ['the provider’s error', denied, correlation, 'application/json', 'provider-error:access_denied'],
    ];
    for (const [label, url, cookie, accept, reason] of cases) {
      const fetched = await (cookie === undefined
        ? handle(request(`${url.pathname}${url.search}`, { headers: { accept } }), { ip: CLIENT_IP }).then(fromFetch)
        : callbackThroughFetch(handle, url, cookie, accept));
      const injected = await callbackThroughFastify(url, cookie, accept);
      expect(contract(fetched), label).toEqual(contract(injected));
      expect(contract(fetched), label).toMatchObject({ status: 400, noStore: true, cookies: ['gh.oidc=cleared; httponly; max-age=0; path=/; samesite=lax'] });
      if (accept === 'text/html') expect(fetched.body, label).toBe(injected.body);
      else expect(contract(fetched).problem, label).toEqual({ code: 'GH_VALIDATION_FAILED', reason });
    }
    const refusals = (await ctx.services.store.audit.list({ limit: 50 })).filter((event) => event.type === 'external.refused');
    expect(refusals).toHaveLength(cases.length * 2);
    expect(await ctx.services.store.users.findByNormalizedEmail('tamper@example.com')).toBeNull();
  });

  it('signs a new user in through fetchHandler, the provider’s redirects followed with fetch; Fastify refuses its replay', async () => {
    const handle = externalLoginHost(ctx);
    provider.accounts.set('newcomer', { email: 'newcomer@example.com', emailVerified: true, name: 'New Comer' });
    const { correlation, back } = await throughProvider(handle, 'newcomer', request('/account/external-login/acme?ReturnUrl=%2Fdocuments%3Fx%3D1'));
    const done = await callbackThroughFetch(handle, back, correlation);
    expect(contract(done)).toMatchObject({
      status: 302,
      noStore: true,
      location: '/documents?x=1',
      cookies: ['gh.auth=set; httponly; path=/; samesite=lax', 'gh.oidc=cleared; httponly; max-age=0; path=/; samesite=lax'],
    });
    const auth = cookiePair(setCookieOf(done, 'gh.auth')!);
    const profile = await ctx.app.inject({ url: '/account/profile', headers: { cookie: auth } });
    expect(json(profile)).toMatchObject({ email: 'newcomer@example.com', emailConfirmed: true, logins: [{ provider: 'acme' }] });

    // The flow is spent in the store: the same callback on the other host signs nobody in.
    const replay = contract(await callbackThroughFastify(back, correlation));
    expect(replay).toMatchObject({ status: 400, problem: { code: 'GH_VALIDATION_FAILED', reason: 'correlation-spent-or-mismatched' } });
    expect(replay.cookies.some((cookie) => cookie.startsWith('gh.auth='))).toBe(false);

    // The provider is this user's only way in: unlinking it is refused on both hosts.
    const unlink = { method: 'DELETE', headers: { cookie: auth } };
    const fetched = contract(await fromFetch(await handle(request('/account/logins/acme', unlink))));
    expect(fetched).toMatchObject({ status: 409, problem: { code: 'GH_CONFLICT' } });
    expect(fetched).toEqual(contract(fromInject(await ctx.app.inject({ url: '/account/logins/acme', ...unlink } as never))));
  });

  it('links a provider from the profile’s form and unlinks it through fetchHandler, refusing a forged form and a stranger as Fastify does', async () => {
    const handle = externalLoginHost(ctx);
    const { user, cookie: auth } = await signInWithCookie(ctx);
    const form = await pageForm(ctx.app, '/account/profile', '/account/logins/acme', { cookie: auth });
    const post = (fields: Record<string, string>) =>
      request('/account/logins/acme', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: form.cookie, origin: PUBLIC_URL },
        body: new URLSearchParams(fields).toString(),
      });

    const forged = contract(await fromFetch(await handle(post({ __RequestVerificationToken: 'forged' }), { ip: CLIENT_IP })));
    expect(forged).toEqual(contract(fromInject(await form.submit({ origin: PUBLIC_URL }, { __RequestVerificationToken: 'forged' }))));
    expect(forged).toMatchObject({ status: 400, cookies: [] });

    provider.accounts.set('linker-at-acme', { email: 'linker.elsewhere@example.com', emailVerified: true });
    const { correlation, back } = await throughProvider(handle, 'linker-at-acme', post(form.fields));
    const linked = await callbackThroughFetch(handle, back, `${auth}; ${correlation}`);
    expect(contract(linked)).toMatchObject({ status: 303, noStore: true, location: '/account/profile', cookies: ['gh.oidc=cleared; httponly; max-age=0; path=/; samesite=lax'] });
    expect(await ctx.services.store.externalLogins.find('acme', 'linker-at-acme')).toMatchObject({ userId: user.id });

    // A JSON start of linking is the same 302 on both hosts.
    const asJson = { method: 'POST', headers: { cookie: auth } };
    const started = contract(await fromFetch(await handle(request('/account/logins/acme', asJson), { ip: CLIENT_IP })));
    expect(started).toEqual(contract(fromInject(await ctx.app.inject({ url: '/account/logins/acme', ...asJson } as never))));
    expect(started).toMatchObject({ status: 302, cookies: ['gh.oidc=set; httponly; max-age=600; path=/; samesite=lax'] });

    const unlink = { method: 'DELETE', headers: { cookie: auth } };
    const unlinked = contract(await fromFetch(await handle(request('/account/logins/acme', unlink))));
    expect(unlinked).toMatchObject({ status: 204, noStore: true, cookies: [] });
    expect(await ctx.services.store.externalLogins.find('acme', 'linker-at-acme')).toBeNull();
    const cases: [string, Record<string, string>, number][] = [
      ['not linked', { cookie: auth }, 404],
      ['no session', {}, 401],
    ];
    for (const [label, headers, status] of cases) {
      const fetched = contract(await fromFetch(await handle(request('/account/logins/acme', { method: 'DELETE', headers }))));
      const injected = contract(fromInject(await ctx.app.inject({ method: 'DELETE', url: '/account/logins/acme', headers })));
      expect(fetched.status, label).toBe(status);
      expect(fetched, label).toEqual(injected);
    }
  });

  it('unlinks the provider that opened the asking session, and clears its auth cookie', async () => {
    const handle = externalLoginHost(ctx);
    const { user } = await ctx.createUser({ email: 'both-ways@example.com' });
    await ctx.services.store.externalLogins.add({ userId: user.id, provider: 'acme', subject: 'both-ways', createdAt: 1 });
    provider.accounts.set('both-ways', { email: 'both-ways@example.com', emailVerified: true });
    const { correlation, back } = await throughProvider(handle, 'both-ways');
    const auth = cookiePair(setCookieOf(await callbackThroughFetch(handle, back, correlation), 'gh.auth')!);
    const unlinked = contract(await fromFetch(await handle(request('/account/logins/acme', { method: 'DELETE', headers: { cookie: auth } }))));
    expect(unlinked).toMatchObject({ status: 204, noStore: true });
    expect(unlinked.cookies).toEqual([expect.stringMatching(/^gh\.auth=cleared; .*max-age=0/)]);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: auth } })).statusCode).toBe(401);
  });
});

describe.runIf(sqlite)('linking through fetchHandler after an old sign-in', () => {
  const clock = new ManualClock(Date.now());
  const ctx = useTestApp(sqlite!, { env: ENV, clock });

  it('is refused 403 GH_REAUTHENTICATION_REQUIRED, and the profile’s form goes to the login page, as on Fastify', async () => {
    const handle = externalLoginHost(ctx);
    const { cookie } = await signInWithCookie(ctx);
    const form = await pageForm(ctx.app, '/account/profile', '/account/logins/acme', { cookie });
    clock.advance(STALE_MS);

    const post = { method: 'POST', headers: { cookie } };
    const refused = await fromFetch(await handle(request('/account/logins/acme', post), { ip: CLIENT_IP }));
    expect(contract(refused)).toEqual(contract(fromInject(await ctx.app.inject({ url: '/account/logins/acme', ...post } as never))));
    expect(contract(refused)).toMatchObject({ status: 403, cookies: [], problem: { code: 'GH_REAUTHENTICATION_REQUIRED' } });
    expect(JSON.parse(refused.body)).toMatchObject({ maxAgeSeconds: 300 });

    const sent = await handle(
      request('/account/logins/acme', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: form.cookie, origin: PUBLIC_URL },
        body: new URLSearchParams(form.fields).toString(),
      }),
      { ip: CLIENT_IP },
    );
    const fetched = contract(await fromFetch(sent));
    expect(fetched).toEqual(contract(fromInject(await form.submit({ origin: PUBLIC_URL }))));
    expect(fetched).toMatchObject({ status: 303, noStore: true, location: '/account/login?ReturnUrl=%2Faccount%2Fprofile', cookies: [] });
  });
});
