/**
 * The two-factor endpoints through the Web-standard handler (`fetchHandler`), over the services
 * of a real instance on SQLite, beside the same requests through the Fastify app: the second step
 * (a right TOTP code opens the session, a wrong one is 401 GH_SIGNIN_FAILED, no pending cookie is
 * refused as ever), a recovery code, a code sent by mail; a form post of the second step with its
 * antiforgery token (303), a refused form's page; the authenticator set-up refused 403
 * GH_REAUTHENTICATION_REQUIRED to an old sign-in; turning two-factor on and off, new recovery
 * codes; the phone number; and the per-account limit a pending second step counts on.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { fetchHandler, type FetchHandlerOptions } from '../../src/endpoints/fetch-handler.ts';
import { membershipPolicies } from '../../src/policies/membership-policies.ts';
import { twoFactorEndpoints } from '../../src/endpoints/two-factor/two-factor-endpoints.ts';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { json, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator, wrongCode } from '../helpers/two-factor.ts';

const [sqlite] = await testEngines();
/** Past the default REAUTH_MINUTES. */
const STALE_MS = 5 * 60_000 + 1_000;
/** One TOTP step. */
const STEP_MS = 30_000;
const IP = '203.0.113.9';

/** The endpoints and the handler options of the instance, as a Web-standard host would build them. */
function handlerOf(ctx: TestApp) {
  const { services } = ctx;
  const { evaluator, policies } = ctx.app.gatehouse;
  const { config } = services;
  const endpoints = twoFactorEndpoints({
    config,
    clock: services.clock,
    keyRing: services.keyRing,
    recentSignIn: services.recentSignIn,
    bearerTokens: services.bearerTokens,
    sessions: services.sessions,
    paths: MembershipPaths.ROOT,
    pages: ctx.app.pages,
    signIn: services.signIn,
    twoFactor: services.twoFactor,
    users: services.users,
  });
  const options: FetchHandlerOptions = {
    evaluator,
    policies,
    groups: [{ authorize: [{ policy: membershipPolicies.authenticated }] }],
    limits: { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns },
    trustedOrigins: [config.publicUrl.origin],
    antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
  };
  const handle = fetchHandler(endpoints, options);
  return (request: Request) => handle(request, { ip: IP });
}

function request(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Request {
  const json = body !== undefined && typeof body !== 'string';
  return new Request(`http://gh.test${path}`, {
    method,
    headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body === undefined ? {} : { body: json ? JSON.stringify(body) : body }),
  });
}

/** A Set-Cookie line without its value and its expiry: what both hosts must agree on. */
function cookieShape(line: string): string {
  return line.replace(/=[^;]*/, '=').replace(/; Expires=[^;]*/i, '');
}

/**
 * Status, content type, location, cookies' shapes and the body (its keys, or its problem code):
 * what both hosts must agree on. Cache-control is asserted on the endpoints' own answers only:
 * Fastify's response headers add no-store to every answer under /account/, the host's part.
 */
async function shapeOfFetch(response: Response) {
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    location: response.headers.get('location'),
    cookies: response.headers.getSetCookie().map(cookieShape).sort(),
    body: shapeOf(text, response.headers.get('content-type')),
  };
}

/** The shape of a fetched answer with its cache-control, for the endpoints' own answers. */
async function shapeWithCaching(response: Response) {
  return { ...(await shapeOfFetch(response)), cacheControl: response.headers.get('cache-control') };
}

function shapeOfInject(response: LightMyRequestResponse) {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const type = (response.headers['content-type'] as string | undefined) ?? null;
  return {
    status: response.statusCode,
    contentType: type,
    location: (response.headers.location as string | undefined) ?? null,
    cookies: lines.map(cookieShape).sort(),
    body: shapeOf(response.body, type),
  };
}

function shapeOf(text: string, type: string | null): unknown {
  if (text === '') return null;
  if (type?.startsWith('text/html')) return 'page';
  const body = JSON.parse(text) as Record<string, unknown>;
  return typeof body.code === 'string' ? { code: body.code, status: body.status, ...('errors' in body ? { errors: body.errors } : {}) } : Object.keys(body).sort();
}

function setCookieOf(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

/** The hidden antiforgery field of a page's form. */
function antiforgeryField(page: string): string {
  return /name="__RequestVerificationToken" value="([^"]+)"/.exec(page)![1]!;
}

describe.runIf(sqlite)('the two-factor endpoints through fetchHandler', () => {
  const clock = new ManualClock(Date.now());
  const ctx = useTestApp(sqlite!, { clock });

  /** The two-factor cookie of a first step with the password (over Fastify). */
  async function firstStep(email: string, password: string): Promise<string> {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
    expect(json(response)).toEqual({ succeeded: false, requiresTwoFactor: true });
    return cookiePair(authSetCookie(response, 'gh.twofactor')!);
  }

  it('opens the session at the second step with a right TOTP code, setting the auth cookie and clearing the pending one, as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const owner = await userWithAuthenticator(ctx, clock);
    const pending = await firstStep(owner.email, owner.password);
    const fetched = await handle(request('POST', '/account/login/2fa', { cookie: pending }, { code: totpCode(owner.sharedKey, 1, clock.now()) }));
    const auth = setCookieOf(fetched, 'gh.auth');
    expect(auth).toMatch(/HttpOnly/);
    expect(setCookieOf(fetched, 'gh.twofactor')).toMatch(/Max-Age=0/);
    expect(fetched.headers.get('cache-control')).toBe('no-store');
    const shape = await shapeOfFetch(fetched);
    expect(shape).toMatchObject({ status: 200, body: ['succeeded'] });
    const profile = await ctx.app.inject({ url: '/account/profile', headers: { cookie: cookiePair(auth!) } });
    expect(profile.statusCode).toBe(200);

    clock.advance(STEP_MS);
    const again = await firstStep(owner.email, owner.password);
    const injected = await ctx.app.inject({ method: 'POST', url: '/account/login/2fa', headers: { cookie: again }, payload: { code: totpCode(owner.sharedKey, 1, clock.now()) } });
    expect(shapeOfInject(injected)).toEqual(shape);
  });

  it('refuses a wrong code 401 GH_SIGNIN_FAILED, and a step without the pending cookie as ever, as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const owner = await userWithAuthenticator(ctx, clock);
    const pending = await firstStep(owner.email, owner.password);
    const wrong = { code: wrongCode(owner.sharedKey, clock.now()) };
    const fetched = await shapeOfFetch(await handle(request('POST', '/account/login/2fa', { cookie: pending }, wrong)));
    expect(fetched).toMatchObject({ status: 401, contentType: 'application/problem+json; charset=utf-8', cookies: [], body: { code: 'GH_SIGNIN_FAILED' } });
    expect(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/login/2fa', headers: { cookie: pending }, payload: wrong }))).toEqual(fetched);

    const cases: [string, string, Record<string, string>, unknown][] = [
      ['POST JSON', '/account/login/2fa', {}, { code: '123456' }],
      ['POST recovery', '/account/login/recovery', {}, { recoveryCode: 'ABCDE-12345' }],
      ['POST send', '/account/login/2fa/send', {}, { provider: 'Email' }],
      ['GET JSON', '/account/login/2fa', {}, undefined],
      ['GET page', '/account/login/2fa', { accept: 'text/html' }, undefined],
    ];
    for (const [label, path, headers, body] of cases) {
      const method = label.startsWith('GET') ? 'GET' : 'POST';
      const withoutCookie = await shapeOfFetch(await handle(request(method, path, headers, body)));
      const injected = await ctx.app.inject({ method, url: path, headers, ...(body === undefined ? {} : { payload: body as object }) });
      expect(withoutCookie, label).toEqual(shapeOfInject(injected));
      expect(withoutCookie.status, label).toBe(label === 'GET page' ? 303 : 401);
    }
  });

  it('lists the providers, takes a recovery code, and sends a code by e-mail (202) but not by text message to a user without a phone (400)', async () => {
    const handle = handlerOf(ctx);
    const owner = await userWithAuthenticator(ctx, clock);
    const pending = await firstStep(owner.email, owner.password);
    const providers = await handle(request('GET', '/account/login/2fa', { cookie: pending }));
    expect(providers.headers.get('cache-control')).toBe('no-store');
    expect(await providers.json()).toEqual({ requiresTwoFactor: true, providers: ['Authenticator', 'Email'] });

    const sent = await handle(request('POST', '/account/login/2fa/send', { cookie: pending }, { provider: 'Email' }));
    expect(await shapeWithCaching(sent)).toMatchObject({ status: 202, cacheControl: 'no-store', body: null });
    const [mail] = await ctx.services.store.outbox.list({ recipient: owner.email, limit: 1 });
    expect(mail!.text).toMatch(/\b\d{6}\b/);
    const phone = await shapeOfFetch(await handle(request('POST', '/account/login/2fa/send', { cookie: pending }, { provider: 'Phone' })));
    expect(phone).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED', errors: { provider: [expect.any(String)] } } });
    expect(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/login/2fa/send', headers: { cookie: pending }, payload: { provider: 'Phone' } }))).toEqual(phone);

    const recovered = await handle(request('POST', '/account/login/recovery', { cookie: pending }, { recoveryCode: owner.recoveryCodes[0] }));
    expect(recovered.status).toBe(200);
    expect(setCookieOf(recovered, 'gh.auth')).toBeDefined();
    const reused = await handle(request('POST', '/account/login/recovery', { cookie: await firstStep(owner.email, owner.password) }, { recoveryCode: owner.recoveryCodes[0] }));
    expect(reused.status).toBe(401);
  });

  it('takes the second step as a form post with its antiforgery token (303 to the return URL), and shows a refused form its page again', async () => {
    const handle = handlerOf(ctx);
    const owner = await userWithAuthenticator(ctx, clock);
    const pending = await firstStep(owner.email, owner.password);
    const page = await handle(request('GET', '/account/login/2fa?ReturnUrl=%2Fdocuments', { cookie: pending, accept: 'text/html' }));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toBeTruthy();
    const html = await page.text();
    expect(html).toContain('action="/account/login/2fa?ReturnUrl=%2Fdocuments"');
    const antiforgeryCookie = cookiePair(setCookieOf(page, 'gh.af')!);
    const cookie = `${pending}; ${antiforgeryCookie}`;
    const form = (fields: Record<string, string>) =>
      request('POST', '/account/login/2fa?ReturnUrl=%2Fdocuments', { cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(fields).toString());
    const token = antiforgeryField(html);

    const forged = await shapeOfFetch(await handle(form({ code: totpCode(owner.sharedKey, 1, clock.now()), __RequestVerificationToken: 'forged' })));
    expect(forged).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED', errors: { __RequestVerificationToken: [expect.any(String)] } } });

    const invalid = await handle(form({ __RequestVerificationToken: token }));
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await invalid.text()).toContain('action="/account/login/2fa?ReturnUrl=%2Fdocuments"');

    const refused = await handle(form({ code: wrongCode(owner.sharedKey, clock.now()), __RequestVerificationToken: token }));
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('The code is not valid.');
    expect(setCookieOf(refused, 'gh.auth')).toBeUndefined();

    const done = await handle(form({ code: totpCode(owner.sharedKey, 1, clock.now()), rememberClient: 'true', __RequestVerificationToken: token }));
    expect(await shapeWithCaching(done)).toMatchObject({ status: 303, location: '/documents', cacheControl: 'no-store', body: null });
    expect(setCookieOf(done, 'gh.auth')).toBeDefined();
    expect(setCookieOf(done, 'gh.2fa')).toMatch(/Max-Age=1209600/);
  });

  it('refuses the authenticator set-up 403 GH_REAUTHENTICATION_REQUIRED to an old sign-in, as Fastify does, and sets it up after a new one', async () => {
    const handle = handlerOf(ctx);
    const { user, password, cookie } = await signInWithCookie(ctx);
    clock.advance(STALE_MS);
    const stale = await shapeOfFetch(await handle(request('POST', '/account/2fa/authenticator', { cookie }, {})));
    expect(stale).toMatchObject({ status: 403, contentType: 'application/problem+json; charset=utf-8', body: { code: 'GH_REAUTHENTICATION_REQUIRED' } });
    expect(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/2fa/authenticator', headers: { cookie }, payload: {} }))).toEqual(stale);
    const anonymous = await shapeOfFetch(await handle(request('POST', '/account/2fa/authenticator', {}, {})));
    expect(anonymous).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/2fa/authenticator', payload: {} })));
    expect(anonymous.status).toBe(401);

    const signedIn = await ctx.app.inject({ method: 'POST', url: '/account/login', headers: { cookie }, payload: { email: user.email, password } });
    const fresh = cookiePair(authSetCookie(signedIn)!);
    const setUp = await handle(request('POST', '/account/2fa/authenticator', { cookie: fresh }, {}));
    expect(await shapeWithCaching(setUp.clone())).toMatchObject({ status: 200, cacheControl: 'no-store', body: ['otpauthUri', 'qrSvg', 'sharedKey'] });
    const { sharedKey } = (await setUp.json()) as { sharedKey: string };
    const state = await handle(request('GET', '/account/2fa', { cookie: fresh }));
    expect(await state.json()).toEqual({ twoFactorEnabled: false, recoveryCodesLeft: 0 });

    const enabled = await handle(request('POST', '/account/2fa/enable', { cookie: fresh }, { code: totpCode(sharedKey, 0, clock.now()) }));
    expect(enabled.status).toBe(200);
    expect(((await enabled.json()) as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);
    // A security change: the asking session goes on under a new cookie.
    const renewed = cookiePair(setCookieOf(enabled, 'gh.auth')!);
    expect(renewed).not.toBe(fresh);
    expect(await (await handle(request('GET', '/account/2fa', { cookie: renewed }))).json()).toEqual({ twoFactorEnabled: true, recoveryCodesLeft: 10 });
  });

  it('makes new recovery codes, turns two-factor off (204), and shows the set-up page, with refusals by field', async () => {
    const handle = handlerOf(ctx);
    const owner = await userWithAuthenticator(ctx, clock);
    const cookie = owner.auth;
    const wrong = await shapeOfFetch(await handle(request('POST', '/account/2fa/recovery-codes', { cookie }, { code: wrongCode(owner.sharedKey, clock.now()) })));
    expect(wrong).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED', errors: { code: ['The code is not valid. Enter the current code.'] } } });
    const codes = await handle(request('POST', '/account/2fa/recovery-codes', { cookie }, { code: owner.recoveryCodes[0] }));
    expect(codes.status).toBe(400);
    const regenerated = await handle(request('POST', '/account/2fa/recovery-codes', { cookie }, { code: totpCode(owner.sharedKey, 1, clock.now()) }));
    expect(regenerated.status).toBe(200);
    const { recoveryCodes } = (await regenerated.json()) as { recoveryCodes: string[] };

    const page = await handle(request('GET', '/account/2fa', { cookie, accept: 'text/html' }));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/account/2fa/disable"');
    const formCookie = `${cookie}; ${cookiePair(setCookieOf(page, 'gh.af')!)}`;
    const refusedForm = await handle(
      request(
        'POST',
        '/account/2fa/recovery-codes',
        { cookie: formCookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ code: wrongCode(owner.sharedKey, clock.now()), __RequestVerificationToken: antiforgeryField(html) }).toString(),
      ),
    );
    expect(refusedForm.status).toBe(400);
    expect(refusedForm.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await refusedForm.text()).toContain('The code is not valid. Enter the current code.');

    const disabled = await handle(request('POST', '/account/2fa/disable', { cookie }, { code: recoveryCodes[0] }));
    expect(await shapeWithCaching(disabled.clone())).toMatchObject({ status: 204, cacheControl: 'no-store', body: null });
    const renewed = cookiePair(setCookieOf(disabled, 'gh.auth')!);
    expect((await (await handle(request('GET', '/account/2fa', { cookie: renewed }))).json()) as object).toMatchObject({ twoFactorEnabled: false });
  });

  it('answers the phone number endpoints as Fastify does, and a form post to remove it with its page', async () => {
    const handle = handlerOf(ctx);
    const { cookie } = await signInWithCookie(ctx);
    const fetchedState = await handle(request('GET', '/account/phone', { cookie }));
    expect(fetchedState.headers.get('cache-control')).toBe('no-store');
    const state = await shapeOfFetch(fetchedState);
    expect(state).toEqual(shapeOfInject(await ctx.app.inject({ url: '/account/phone', headers: { cookie } })));
    expect(state).toMatchObject({ status: 200, body: ['available', 'phoneConfirmed', 'phoneNumber'] });
    const badNumber = await shapeOfFetch(await handle(request('POST', '/account/phone', { cookie }, { phoneNumber: '555-0123' })));
    expect(badNumber).toMatchObject({ status: 400, body: { errors: { phoneNumber: [expect.stringMatching(/international format/)] } } });
    expect(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/phone', headers: { cookie }, payload: { phoneNumber: '555-0123' } }))).toEqual(badNumber);
    const confirm = await shapeOfFetch(await handle(request('POST', '/account/phone/confirm', { cookie }, { code: '123456' })));
    expect(confirm).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED' } });

    const page = await handle(request('GET', '/account/phone', { cookie, accept: 'text/html' }));
    const html = await page.text();
    const antiforgeryCookie = cookiePair(setCookieOf(page, 'gh.af')!);
    const removed = await handle(
      request(
        'POST',
        '/account/phone/remove',
        { cookie: `${cookie}; ${antiforgeryCookie}`, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ __RequestVerificationToken: antiforgeryField(html) }).toString(),
      ),
    );
    expect(removed.status).toBe(200);
    expect(removed.headers.get('cache-control')).toBe('no-store');
    expect(await removed.text()).toContain('Your phone number is removed.');
    const json = await handle(request('POST', '/account/phone/remove', { cookie }));
    expect(await shapeOfFetch(json)).toMatchObject({ status: 204, body: null });
  });
});

describe.runIf(sqlite)('the two-factor limits through fetchHandler', () => {
  const clock = new ManualClock(Date.now());
  const ctx = useTestApp(sqlite!, { clock, env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '2' } });

  it('counts second steps on the budget of the user the two-factor cookie names, which the signed-in user’s code checks share', async () => {
    const handle = handlerOf(ctx);
    const owner = await userWithAuthenticator(ctx, clock);
    const login = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: owner.email, password: owner.password } });
    const pending = cookiePair(authSetCookie(login, 'gh.twofactor')!);
    const wrong = { code: wrongCode(owner.sharedKey, clock.now()) };
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await handle(request('POST', '/account/login/2fa', { cookie: pending }, wrong))).status);
    const refused = await handle(request('POST', '/account/login/2fa', { cookie: pending }, wrong));
    expect([...statuses, refused.status]).toEqual([401, 401, 429]);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    // The signed-in user's own code checks, from the same client, count on the same budget.
    const codes = await handle(request('POST', '/account/2fa/recovery-codes', { cookie: owner.auth }, wrong));
    expect(await shapeOfFetch(codes)).toMatchObject({ status: 429, body: { code: 'GH_RATE_LIMITED' } });
    // Without the cookie the step names no account: only the client's budget counts.
    expect((await handle(request('POST', '/account/login/2fa', {}, wrong))).status).toBe(401);
  });
});
