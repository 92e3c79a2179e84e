/**
 * The passkey endpoints through the Web-standard handler (`fetchHandler`), over the services of a
 * real instance on SQLite, beside the same requests to the Fastify app: the sign-in options (the
 * challenge cookie set), a verification over a missing or another browser's challenge (401, the
 * cookie cleared), the account's passkeys for a cookie or a bearer caller, the registration
 * options refused to an old sign-in (403 GH_REAUTHENTICATION_REQUIRED) and to an anonymous caller
 * (401), bodies that are not valid (400). And one whole ceremony through fetchHandler alone:
 * registration, sign-in, rename and removal, whose cookies Fastify then accepts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { passkeyEndpoints } from '../../src/endpoints/passkeys/passkey-endpoints.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const ORIGIN = 'http://localhost:3000';
/** The default REAUTH_MINUTES, and a moment past it. */
const STALE_MS = 5 * 60_000 + 1_000;

type CreationOptions = Parameters<SoftwareAuthenticator['register']>[0];
type RequestOptions = Parameters<SoftwareAuthenticator['assert']>[0];

/** A Web request to the handler, its body as JSON text when it has one. */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Request {
  const type: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  return new Request(`${ORIGIN}${path}`, { method, headers: { ...type, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/**
 * Status, the headers both hosts must agree on, and the body's keys (or its problem, or a list's
 * length). Not `Cache-Control`: the Fastify app adds `no-store` to every answer under `/account/`
 * (its credential paths), which this handler is not given (`responseHeaders`), so that the
 * endpoints' own `no-store` is what the tests below see.
 */
async function shapeOfFetch(response: Response) {
  const headers = { type: response.headers.get('content-type'), challenge: response.headers.get('www-authenticate') };
  return { status: response.status, headers, body: shapeOf(await response.text()) };
}

function shapeOfInject(response: LightMyRequestResponse) {
  const header = (name: string) => (response.headers[name] as string | undefined) ?? null;
  return { status: response.statusCode, headers: { type: header('content-type'), challenge: header('www-authenticate') }, body: shapeOf(response.body) };
}

function shapeOf(text: string): unknown {
  if (text === '') return null;
  const body = JSON.parse(text) as unknown;
  if (Array.isArray(body)) return { length: body.length };
  const fields = body as Record<string, unknown>;
  return typeof fields.code === 'string' ? fields : Object.keys(fields).sort();
}

/** The Set-Cookie line of `name`, from either host's answer. */
function setCookieOf(lines: readonly string[] | string | undefined, name: string): string | undefined {
  const all = lines === undefined ? [] : typeof lines === 'string' ? [lines] : lines;
  return all.find((line) => line.startsWith(`${name}=`));
}

describe.runIf(sqlite)('the passkey endpoints through fetchHandler', () => {
  const clock = new ManualClock(Date.now());
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN }, clock });
  let handle: FetchHandler;

  beforeEach(() => {
    const { services } = ctx;
    const { evaluator, policies, config } = ctx.app.gatehouse;
    const limits = { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns };
    const endpoints = passkeyEndpoints({
      config,
      clock: services.clock,
      keyRing: services.keyRing,
      recentSignIn: services.recentSignIn,
      bearerTokens: services.bearerTokens,
      sessions: services.sessions,
      passkeys: services.passkeys,
      users: services.users,
      signIn: services.signIn,
    });
    handle = fetchHandler(endpoints, { evaluator, policies, limits, trustedOrigins: [config.publicUrl.origin] });
  });

  const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) =>
    ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

  it('answers the sign-in options with the challenge in the gh.passkey cookie, as Fastify does', async () => {
    const fetched = await handle(request('POST', '/account/login/passkey/options'));
    const injected = await inject('POST', '/account/login/passkey/options');
    expect(await shapeOfFetch(fetched.clone())).toEqual(shapeOfInject(injected));
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('cache-control')).toBe('no-store');
    expect(await fetched.json()).toMatchObject({ challenge: expect.any(String), rpId: 'localhost', allowCredentials: [] });
    const line = setCookieOf(fetched.headers.getSetCookie(), 'gh.passkey')!;
    expect(line).toMatch(/^gh\.passkey=[^;]+; Max-Age=300; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(line.replace(/=[^;]+;/, '=…;')).toBe(setCookieOf(injected.headers['set-cookie'], 'gh.passkey')!.replace(/=[^;]+;/, '=…;'));

    // `{}` is no body; anything else is one 400 naming the body, on both hosts.
    expect((await handle(request('POST', '/account/login/passkey/options', {}, {}))).status).toBe(200);
    const extra = await shapeOfFetch(await handle(request('POST', '/account/login/passkey/options', {}, { userName: 'ada' })));
    expect(extra).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED', errors: { body: [expect.any(String)] } } });
    expect(extra).toEqual(shapeOfInject(await inject('POST', '/account/login/passkey/options', {}, { userName: 'ada' })));
  });

  it('refuses a verification over a missing challenge or another browser’s, clearing the cookie, as Fastify does', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    const creation = await inject('POST', '/account/passkeys/options', { cookie });
    expect((await inject('POST', '/account/passkeys', { cookie }, { response: authenticator.register(json<CreationOptions>(creation), { origin: ORIGIN }) })).statusCode).toBe(201);

    /** Options for one browser, an assertion over them, and another browser's challenge cookie. */
    const attempt = async () => {
      const ours = await inject('POST', '/account/login/passkey/options');
      const theirs = await handle(request('POST', '/account/login/passkey/options'));
      const response = authenticator.assert(json<RequestOptions>(ours), { origin: ORIGIN });
      return { response, otherCookie: cookiePair(setCookieOf(theirs.headers.getSetCookie(), 'gh.passkey')!) };
    };
    for (const label of ['missing', 'another browser’s']) {
      const forFetch = await attempt();
      const forInject = await attempt();
      const headers = (otherCookie: string): Record<string, string> => (label === 'missing' ? {} : { cookie: otherCookie });
      const fetched = await handle(request('POST', '/account/login/passkey', headers(forFetch.otherCookie), { response: forFetch.response }));
      const injected = await inject('POST', '/account/login/passkey', headers(forInject.otherCookie), { response: forInject.response });
      const shape = await shapeOfFetch(fetched.clone());
      expect(shape, label).toMatchObject({ status: 401, body: { code: 'GH_SIGNIN_FAILED', succeeded: false } });
      expect(shape, label).toEqual(shapeOfInject(injected));
      expect(fetched.headers.get('cache-control'), label).toBe('no-store');
      // The challenge is spent either way; no session is opened.
      expect(setCookieOf(fetched.headers.getSetCookie(), 'gh.passkey'), label).toMatch(/^gh\.passkey=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/);
      expect(setCookieOf(injected.headers['set-cookie'], 'gh.passkey'), label).toMatch(/^gh\.passkey=; Max-Age=0;/);
      expect(setCookieOf(fetched.headers.getSetCookie(), 'gh.auth'), label).toBeUndefined();
    }
  });

  it('lists the signed-in user’s passkeys to a cookie or a bearer caller, and refuses an anonymous one 401, as Fastify does', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: true });
    const creation = await handle(request('POST', '/account/passkeys/options', { cookie }));
    const created = await handle(request('POST', '/account/passkeys', { cookie }, { response: authenticator.register((await creation.json()) as CreationOptions, { origin: ORIGIN }), name: 'Phone' }));
    expect(created.status).toBe(201);
    const token = await ctx.tokenFor(user);
    for (const headers of [{ cookie }, bearer(token)]) {
      const fetched = await handle(request('GET', '/account/passkeys', headers));
      const injected = await inject('GET', '/account/passkeys', headers);
      expect(await shapeOfFetch(fetched.clone())).toEqual(shapeOfInject(injected));
      expect(fetched.headers.get('cache-control')).toBe('no-store');
      expect(await fetched.json()).toEqual([
        { id: authenticator.credentialId, name: 'Phone', createdAt: new Date(clock.now()).toISOString(), lastUsedAt: null, backedUp: true },
      ]);
      expect(JSON.parse(injected.body)).toEqual(JSON.parse(JSON.stringify([{ id: authenticator.credentialId, name: 'Phone', createdAt: new Date(clock.now()).toISOString(), lastUsedAt: null, backedUp: true }])));
    }
    for (const [method, path] of [['GET', '/account/passkeys'], ['POST', '/account/passkeys/options']] as const) {
      const fetched = await shapeOfFetch(await handle(request(method, path)));
      expect(fetched, path).toMatchObject({ status: 401, headers: { challenge: expect.any(String) } });
      expect(fetched, path).toEqual(shapeOfInject(await inject(method, path)));
    }
  });

  it('refuses the registration options 403 GH_REAUTHENTICATION_REQUIRED to an old sign-in, cookie or bearer, as Fastify does', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const token = await ctx.tokenFor(user);
    for (const headers of [{ cookie }, bearer(token)]) expect((await handle(request('POST', '/account/passkeys/options', headers))).status).toBe(200);
    clock.advance(STALE_MS);
    for (const headers of [{ cookie }, bearer(token)]) {
      const fetched = await shapeOfFetch(await handle(request('POST', '/account/passkeys/options', headers)));
      expect(fetched).toMatchObject({
        status: 403,
        headers: { type: 'application/problem+json; charset=utf-8' },
        body: { code: 'GH_REAUTHENTICATION_REQUIRED', type: 'urn:gatehouse:problem:reauthentication-required', maxAgeSeconds: 300 },
      });
      expect(fetched).toEqual(shapeOfInject(await inject('POST', '/account/passkeys/options', headers)));
    }
    expect(await ctx.services.store.passkeys.listForUser(user.id)).toEqual([]);
  });

  it('takes no body, {} or JSON null for the registration options, and refuses a name too long 400, as Fastify does', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const noBody = await handle(request('POST', '/account/passkeys/options', { cookie }));
    expect(await shapeOfFetch(noBody)).toEqual(shapeOfInject(await inject('POST', '/account/passkeys/options', { cookie })));
    expect(noBody.status).toBe(200);
    const nullBody = await handle(new Request(`${ORIGIN}/account/passkeys/options`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: 'null' }));
    expect(nullBody.status).toBe(200);
    expect((await handle(request('POST', '/account/passkeys/options', { cookie }), { body: null })).status).toBe(200);
    const longName = { name: 'x'.repeat(65) };
    const fetched = await shapeOfFetch(await handle(request('POST', '/account/passkeys/options', { cookie }, longName)));
    expect(fetched).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED', errors: { name: [expect.any(String)] } } });
    expect(fetched).toEqual(shapeOfInject(await inject('POST', '/account/passkeys/options', { cookie }, longName)));
  });

  it('runs a whole ceremony through fetchHandler: registration, sign-in, rename and removal, whose cookies Fastify accepts', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    const creation = (await (await handle(request('POST', '/account/passkeys/options', { cookie }, { name: 'Work key' }))).json()) as CreationOptions;
    const created = await handle(request('POST', '/account/passkeys', { cookie }, { response: authenticator.register(creation, { origin: ORIGIN }) }));
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(await created.json()).toEqual({ id: authenticator.credentialId, name: 'Work key', createdAt: new Date(clock.now()).toISOString() });

    const options = await handle(request('POST', '/account/login/passkey/options'));
    const challenge = cookiePair(setCookieOf(options.headers.getSetCookie(), 'gh.passkey')!);
    const assertion = authenticator.assert((await options.json()) as RequestOptions, { origin: ORIGIN });
    const signedIn = await handle(request('POST', '/account/login/passkey', { cookie: challenge }, { response: assertion }));
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ succeeded: true });
    const lines = signedIn.headers.getSetCookie();
    expect(setCookieOf(lines, 'gh.passkey')).toMatch(/^gh\.passkey=; Max-Age=0;/);
    const session = cookiePair(setCookieOf(lines, 'gh.auth')!);
    const listed = await inject('GET', '/account/passkeys', { cookie: session });
    expect(listed.statusCode).toBe(200);
    expect(json<{ lastUsedAt: string | null }[]>(listed)[0]!.lastUsedAt).toBe(new Date(clock.now()).toISOString());

    const path = `/account/passkeys/${authenticator.credentialId}`;
    const renamed = await handle(request('PATCH', path, { cookie: session }, { name: ' Laptop ' }));
    expect(renamed.status).toBe(204);
    expect(await renamed.text()).toBe('');
    expect((await ctx.services.store.passkeys.listForUser(user.id)).map(({ name }) => name)).toEqual(['Laptop']);
    const unknown = await shapeOfFetch(await handle(request('PATCH', '/account/passkeys/nope', { cookie: session }, { name: 'x' })));
    expect(unknown).toMatchObject({ status: 404, body: { code: 'GH_NOT_FOUND' } });
    expect(unknown).toEqual(shapeOfInject(await inject('PATCH', '/account/passkeys/nope', { cookie: session }, { name: 'x' })));

    // A security change: the session that asked is re-issued, and the other one (the password's) ends.
    const removed = await handle(request('DELETE', path, { cookie: session }));
    expect(removed.status).toBe(204);
    const reissued = cookiePair(setCookieOf(removed.headers.getSetCookie(), 'gh.auth')!);
    expect(reissued).not.toBe(session);
    expect((await inject('GET', '/account/passkeys', { cookie: reissued })).body).toBe('[]');
    expect((await inject('GET', '/account/passkeys', { cookie })).statusCode).toBe(401);
    expect(await ctx.services.store.passkeys.listForUser(user.id)).toEqual([]);
  });
});
