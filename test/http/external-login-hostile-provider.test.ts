/**
 * External sign-in against a provider under the attacker's control (test/helpers/hostile-provider.ts):
 * ID tokens forged, unsigned, signed by keys the provider never published, addressed to other
 * parties or issued in the future are refused with the failure page, one `external.refused`
 * event and no session; a callback replayed with its cookie costs the provider no second token
 * request; a provider that is down or hangs answers 502 within its timeout; the provider's
 * `error` text never reaches the audit log or an answer. Nothing here depends on the engine.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { type HostileProvider, startHostileProvider, unsecuredToken, withoutSignature } from '../helpers/hostile-provider.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';

const providerEnv = (name: string, provider: HostileProvider, extra: Record<string, string> = {}) => ({
  [`OIDC_${name}_ISSUER`]: provider.issuer,
  [`OIDC_${name}_CLIENT_ID`]: provider.clientId,
  [`OIDC_${name}_CLIENT_SECRET`]: provider.clientSecret,
  ...Object.fromEntries(Object.entries(extra).map(([key, value]) => [`OIDC_${name}_${key}`, value])),
});

describe('external sign-in against a hostile provider', () => {
  let evil: HostileProvider;
  /** Lists HS256 and `none` in its metadata beside RS256. */
  let lax: HostileProvider;
  let slow: HostileProvider;
  let instance: TestApp;

  beforeAll(async () => {
    evil = await startHostileProvider(`${PUBLIC_URL}/signin-evil`);
    lax = await startHostileProvider(`${PUBLIC_URL}/signin-lax`);
    lax.algorithms = ['RS256', 'HS256', 'none'];
    slow = await startHostileProvider(`${PUBLIC_URL}/signin-slow`);
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), {
      env: { PUBLIC_URL, ...providerEnv('EVIL', evil), ...providerEnv('LAX', lax), ...providerEnv('SLOW', slow, { TIMEOUT_SECONDS: '1' }) },
    });
  });
  afterAll(async () => {
    await instance?.close();
    await evil?.close();
    await lax?.close();
    await slow?.close();
    await sqlite!.dropAll();
  });
  beforeEach(() => {
    for (const provider of [evil, lax, slow]) {
      provider.behaviour = { discovery: 'answer', jwks: 'answer', token: 'answer' };
      provider.idToken = (claims) => provider.sign(claims);
    }
  });

  let accounts = 0;
  /** A new subject at the provider, with a verified e-mail no local account has. */
  const newAccount = (provider: HostileProvider) => {
    accounts += 1;
    provider.account = { sub: `victim-${accounts}`, email: `person.${accounts}@example.com`, email_verified: true };
    return provider.account;
  };

  /** Starts a flow at Gatehouse and lets the provider answer: the callback URL and the correlation cookie. */
  async function flow(provider: HostileProvider, name = 'evil') {
    const start = await instance.app.inject({ url: `/account/external-login/${name}?returnUrl=%2Fme` });
    expect(start.statusCode).toBe(302);
    return { back: await provider.authorize(start.headers.location as string), correlation: cookiePair(authSetCookie(start, 'gh.oidc')!) };
  }
  const callback = (back: URL, cookie: string, headers: Record<string, string> = {}) =>
    instance.app.inject({ url: `${back.pathname}${back.search}`, headers: { cookie, ...headers } });

  const refusals = async () => (await instance.services.store.audit.list({ limit: 200 })).filter((event) => event.type === 'external.refused');

  /** Runs a flow whose ID token `forge` makes; expects it refused for `reason`, with one event and no session. */
  async function expectRefused(forge: (claims: JWTPayload) => string | Promise<string>, reason: string, provider = evil, name = 'evil') {
    const account = newAccount(provider);
    provider.idToken = forge;
    const before = (await refusals()).length;
    const { back, correlation } = await flow(provider, name);
    const refused = await callback(back, correlation, { accept: 'text/html' });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(authSetCookie(refused)).toBeUndefined();
    const events = await refusals();
    expect(events.length - before).toBe(1);
    expect(events[0]!.detail).toEqual({ provider: name, reason });
    expect(await instance.services.store.users.findByNormalizedEmail(account.email!)).toBeNull();
    expect(await instance.services.store.externalLogins.find(name, account.sub)).toBeNull();
  }

  it('signs in with an ID token the provider signed with a published key (the control)', async () => {
    newAccount(evil);
    const { back, correlation } = await flow(evil);
    const done = await callback(back, correlation);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe('/me');
    expect(done.headers['cache-control']).toBe('no-store');
    expect(authSetCookie(done)).toBeDefined();
  });

  it('refuses an ID token with an empty signature', async () => {
    await expectRefused(async (claims) => withoutSignature(await evil.sign(claims)), 'id-token-signature');
  });

  it('refuses an ID token signed by a key the provider never published, under a published kid', async () => {
    await expectRefused((claims) => evil.sign(claims, { key: evil.unpublishedKey }), 'id-token-signature');
  });

  it('refuses an ID token signed by an unpublished key under an unknown kid, after reading the keys again', async () => {
    const fetched = evil.requests.jwks;
    await expectRefused((claims) => evil.sign(claims, { key: evil.unpublishedKey, kid: 'made-up' }), 'id-token-signature');
    expect(evil.requests.jwks).toBe(fetched + 1);
  });

  it('refuses alg none, even when the provider’s metadata lists it', async () => {
    await expectRefused((claims) => unsecuredToken(claims), 'id-token-algorithm', lax, 'lax');
  });

  it('refuses an HS256 ID token keyed by the client secret when the provider lists only RS256', async () => {
    // openid-client holds the token to the metadata's list first; either way, no sign-in.
    await expectRefused((claims) => evil.sign(claims, { alg: 'HS256' }), 'invalid-response');
  });

  it('accepts an HS256 ID token keyed by the client secret when the provider lists HS256, and no other HMAC key', async () => {
    newAccount(lax);
    lax.idToken = (claims) => lax.sign(claims, { alg: 'HS256' });
    const { back, correlation } = await flow(lax, 'lax');
    const done = await callback(back, correlation);
    expect(done.statusCode).toBe(302);
    expect(authSetCookie(done)).toBeDefined();

    const forged = async (claims: JWTPayload) => {
      const { SignJWT } = await import('jose');
      return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a secret that is not the client secret'));
    };
    await expectRefused(forged, 'id-token-signature', lax, 'lax');
  });

  it('refuses an azp naming another client', async () => {
    await expectRefused((claims) => evil.sign({ ...claims, azp: 'another-client' }), 'id-token-authorized-party');
  });

  it('refuses an aud that lists another relying party beside this one, even with azp naming this client', async () => {
    await expectRefused((claims) => evil.sign({ ...claims, aud: [evil.clientId, 'another-relying-party'], azp: evil.clientId }), 'id-token-audience');
  });

  it('refuses an iat in the future beyond the skew, and accepts one within it', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused((claims) => evil.sign({ ...claims, iat: now + 300 }), 'id-token-issued-at');

    newAccount(evil);
    evil.idToken = (claims) => evil.sign({ ...claims, iat: now + 10 });
    const { back, correlation } = await flow(evil);
    expect((await callback(back, correlation)).statusCode).toBe(302);
  });

  it('reads the keys again for an unknown kid: a provider that rotated its keys still signs people in', async () => {
    newAccount(evil);
    const first = await flow(evil);
    expect((await callback(first.back, first.correlation)).statusCode).toBe(302);
    const fetched = evil.requests.jwks;

    const rotated = await evil.rotateKeys();
    newAccount(evil);
    evil.idToken = (claims) => evil.sign(claims, { key: rotated });
    const second = await flow(evil);
    const done = await callback(second.back, second.correlation);
    expect(done.statusCode).toBe(302);
    expect(authSetCookie(done)).toBeDefined();
    expect(evil.requests.jwks).toBe(fetched + 1);
  });

  it('sends no second token request for a callback replayed with the same cookie, one after the other or at once', async () => {
    newAccount(evil);
    const { back, correlation } = await flow(evil);
    const before = evil.requests.token;
    expect((await callback(back, correlation)).statusCode).toBe(302);
    const replay = await callback(back, correlation);
    expect(replay.statusCode).toBe(400);
    expect(authSetCookie(replay)).toBeUndefined();
    expect(evil.requests.token).toBe(before + 1);

    newAccount(evil);
    const raced = await flow(evil);
    const racedBefore = evil.requests.token;
    const answers = await Promise.all(Array.from({ length: 5 }, () => callback(raced.back, raced.correlation)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([302, 400, 400, 400, 400]);
    expect(evil.requests.token).toBe(racedBefore + 1);
  });

  it('does not spend a flow on a callback whose state does not match it', async () => {
    newAccount(evil);
    const { back, correlation } = await flow(evil);
    const wrong = new URL(back);
    wrong.searchParams.set('state', 'not-the-state');
    const before = evil.requests.token;
    expect((await callback(wrong, correlation)).statusCode).toBe(400);
    expect(evil.requests.token).toBe(before);
    expect((await callback(back, correlation)).statusCode).toBe(302);
  });

  it('spends the flow on an error answer, and refuses garbage callbacks without a token request (SEC-55)', async () => {
    newAccount(evil);
    const { back, correlation } = await flow(evil);
    const before = evil.requests.token;
    const state = back.searchParams.get('state')!;
    const denied = await instance.app.inject({ url: `/signin-evil?error=access_denied&state=${encodeURIComponent(state)}`, headers: { cookie: correlation } });
    expect(denied.statusCode).toBe(400);
    // The provider's real code, delivered after the error with the same state and cookie, is refused unsent.
    expect((await callback(back, correlation)).statusCode).toBe(400);
    expect(evil.requests.token).toBe(before);

    for (const garbage of ['code=', 'code=a&code=b', `code=${'x'.repeat(4000)}`]) {
      const fresh = await flow(evil);
      const freshState = encodeURIComponent(fresh.back.searchParams.get('state')!);
      const answer = await instance.app.inject({ url: `/signin-evil?${garbage}&state=${freshState}`, headers: { cookie: fresh.correlation } });
      expect(answer.statusCode).toBe(400);
      expect(authSetCookie(answer)).toBeUndefined();
    }
    const posted = await instance.app.inject({ method: 'POST', url: `${back.pathname}${back.search}`, headers: { cookie: correlation } });
    expect([404, 405]).toContain(posted.statusCode);
    expect(authSetCookie(posted)).toBeUndefined();
  });

  for (const behaviour of ['hang', 'reset', 'fail'] as const) {
    it(`answers 502 GH_EXTERNAL_PROVIDER_UNAVAILABLE within the timeout when the token endpoint ${behaviour === 'fail' ? 'answers 500' : behaviour === 'hang' ? 'hangs' : 'drops the connection'}`, async () => {
      newAccount(slow);
      const { back, correlation } = await flow(slow, 'slow');
      slow.behaviour.token = behaviour;
      const before = (await refusals()).length;
      const startedAt = performance.now();
      const answer = await callback(back, correlation);
      const waited = performance.now() - startedAt;
      expect(answer.statusCode).toBe(502);
      expect(json<{ code: string }>(answer).code).toBe('GH_EXTERNAL_PROVIDER_UNAVAILABLE');
      expect(authSetCookie(answer)).toBeUndefined();
      expect((await refusals()).length - before).toBe(1);
      // OIDC_SLOW_TIMEOUT_SECONDS=1: the answer comes with the timeout, not after a request's own ten seconds.
      expect(waited).toBeLessThan(4_000);
    });
  }

  it('answers 502 when the provider’s key set cannot be fetched, and 400 never', async () => {
    newAccount(slow);
    await slow.rotateKeys(); // an unknown kid makes the key set be fetched again
    slow.idToken = (claims) => slow.sign(claims);
    const { back, correlation } = await flow(slow, 'slow');
    slow.behaviour.jwks = 'hang';
    const answer = await callback(back, correlation);
    expect(answer.statusCode).toBe(502);
    expect(json<{ code: string }>(answer).code).toBe('GH_EXTERNAL_PROVIDER_UNAVAILABLE');
  });

  it('reads the discovery document again after a failure', async () => {
    slow.behaviour.discovery = 'fail';
    newAccount(slow);
    // The token endpoint is down: the next use reads the provider's metadata again.
    const { back, correlation } = await flow(slow, 'slow');
    slow.behaviour.token = 'reset';
    expect((await callback(back, correlation)).statusCode).toBe(502);
    const read = slow.requests.discovery;
    const unavailable = await instance.app.inject({ url: '/account/external-login/slow' });
    expect(slow.requests.discovery).toBe(read + 1);
    // The document failed, the last one read serves; once it answers again, it is read.
    expect(unavailable.statusCode).toBe(302);
    slow.behaviour = { discovery: 'answer', jwks: 'answer', token: 'answer' };
    await instance.app.inject({ url: '/account/external-login/slow' });
    expect(slow.requests.discovery).toBe(read + 2);
    await instance.app.inject({ url: '/account/external-login/slow' });
    expect(slow.requests.discovery).toBe(read + 2);
  });

  it('reduces the provider’s error text to a known code before the audit log and the answer', async () => {
    const { correlation } = await flow(evil);
    const hostile = '<script>alert(1)</script> please visit evil.example';
    const before = (await refusals()).length;
    const answer = await instance.app.inject({
      url: `/signin-evil?error=${encodeURIComponent(hostile)}&error_description=${encodeURIComponent('call +1 555 0100 now')}&state=x`,
      headers: { cookie: correlation, accept: 'text/html' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).not.toContain('<script>alert');
    expect(answer.body).not.toContain('evil.example');
    expect(answer.body).not.toContain('555 0100');
    const events = await refusals();
    expect(events.length - before).toBe(1);
    expect(events[0]!.detail).toEqual({ provider: 'evil', reason: 'provider-error:other' });
    expect(JSON.stringify(instance.logs)).not.toContain('evil.example');

    const denied = await flow(evil);
    await instance.app.inject({ url: '/signin-evil?error=access_denied&state=x', headers: { cookie: denied.correlation } });
    expect((await refusals())[0]!.detail).toEqual({ provider: 'evil', reason: 'provider-error:access_denied' });

    const repeated = await flow(evil);
    const twice = await instance.app.inject({ url: '/signin-evil?error=access_denied&error=login_required&state=x', headers: { cookie: repeated.correlation } });
    expect(twice.statusCode).toBe(400);
    expect((await refusals())[0]!.detail).toEqual({ provider: 'evil', reason: 'provider-error:other' });
  });
});

describe('external sign-in: limits and the provider’s metadata', () => {
  let evil: HostileProvider;
  let spoof: HostileProvider;
  let impostor: HostileProvider;
  let clockOffset = 0;
  let instance: TestApp;

  beforeAll(async () => {
    evil = await startHostileProvider(`${PUBLIC_URL}/signin-evil`);
    spoof = await startHostileProvider(`${PUBLIC_URL}/signin-spoof`);
    // Keys from another host over plain http: anyone on the path could have swapped them.
    spoof.jwksUri = 'http://127.0.0.2:9/jwks';
    // A discovery document that names another issuer: one provider speaking for another.
    impostor = await startHostileProvider(`${PUBLIC_URL}/signin-impostor`);
    impostor.claimedIssuer = evil.issuer;
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), {
      env: { PUBLIC_URL, RATE_LIMIT_IP_PER_MINUTE: '6', ...providerEnv('EVIL', evil), ...providerEnv('SPOOF', spoof), ...providerEnv('IMPOSTOR', impostor) },
      clock: { now: () => Date.now() + clockOffset },
    });
  });
  afterAll(async () => {
    await instance?.close();
    await evil?.close();
    await spoof?.close();
    await impostor?.close();
    await sqlite!.dropAll();
  });

  const from = (ip: string) => ({ remoteAddress: ip });

  it('refuses a provider whose key set is on another host over plain http', async () => {
    const answer = await instance.app.inject({ url: '/account/external-login/spoof', ...from('10.0.0.1') });
    expect(answer.statusCode).toBe(502);
    expect(json<{ code: string }>(answer).code).toBe('GH_EXTERNAL_PROVIDER_UNAVAILABLE');
    expect(spoof.requests.jwks).toBe(0);
  });

  it('refuses a provider whose discovery document names another issuer (SEC-53)', async () => {
    const answer = await instance.app.inject({ url: '/account/external-login/impostor', ...from('10.0.0.1') });
    expect(answer.statusCode).toBe(502);
    expect(json<{ code: string }>(answer).code).toBe('GH_EXTERNAL_PROVIDER_UNAVAILABLE');
    expect(impostor.requests.authorize).toBe(0);
  });

  it('reads the discovery document again once it is a day old', async () => {
    await instance.app.inject({ url: '/account/external-login/evil', ...from('10.0.0.2') });
    const read = evil.requests.discovery;
    await instance.app.inject({ url: '/account/external-login/evil', ...from('10.0.0.2') });
    expect(evil.requests.discovery).toBe(read);
    clockOffset += 25 * 60 * 60 * 1000;
    await instance.app.inject({ url: '/account/external-login/evil', ...from('10.0.0.2') });
    expect(evil.requests.discovery).toBe(read + 1);
  });

  it('rate-limits the start and the callback per IP, sharing the budget of the sign-in routes', async () => {
    const answers: LightMyRequestResponse[] = [];
    for (let request = 0; request < 4; request++) answers.push(await instance.app.inject({ url: '/signin-evil?code=x&state=y', ...from('10.0.0.3') }));
    for (let request = 0; request < 2; request++) answers.push(await instance.app.inject({ url: '/account/external-login/evil', ...from('10.0.0.3') }));
    expect(answers.map((answer) => answer.statusCode)).toEqual([400, 400, 400, 400, 302, 302]);
    const limited = await instance.app.inject({ url: '/signin-evil?code=x&state=y', ...from('10.0.0.3') });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect((await instance.app.inject({ url: '/account/external-login/evil', ...from('10.0.0.3') })).statusCode).toBe(429);
    expect((await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: 'a@example.com', password: 'x' }, ...from('10.0.0.3') })).statusCode).toBe(429);
    // Another address has its own budget.
    expect((await instance.app.inject({ url: '/account/external-login/evil', ...from('10.0.0.4') })).statusCode).toBe(302);
  });
});
