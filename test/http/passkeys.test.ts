/**
 * Passkeys over JSON (docs/reference/http.md, docs/passkeys.md), driven by a software
 * authenticator: registration and sign-in, and each check a relying party makes failing on its
 * own — the origin, the RP ID hash, a replayed or expired challenge, a challenge of another flow
 * or session, a cloned authenticator's counter, an unknown credential — with the sign-in rules of
 * passwords (lockout, unconfirmed e-mail, admin lock, two-factor without user verification) and
 * the management routes (another user's passkey, the last way in, removal as a security change).
 * SQLite only: nothing here depends on the engine (the store's part runs on both in
 * test/contracts/passkey-store.contract.test.ts).
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { authCookieProtector } from '../../src/schemes/auth-cookie.ts';
import type { User } from '../../src/store/ports.ts';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { json, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator } from '../helpers/two-factor.ts';

const [sqlite] = await testEngines();

const ORIGIN = 'http://localhost:3000';
const RP_ID = 'localhost';

interface CreationOptions {
  challenge: string;
  rp: { id: string; name: string };
  user: { id: string; name: string };
  excludeCredentials?: { id: string }[];
  authenticatorSelection?: { residentKey?: string; requireResidentKey?: boolean; userVerification?: string };
  attestation?: string;
  timeout?: number;
}

interface RequestOptions {
  challenge: string;
  rpId: string;
  allowCredentials?: unknown[];
  userVerification?: string;
}

function setCookieLine(response: LightMyRequestResponse, name: string): string | undefined {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return lines.find((line) => line.startsWith(`${name}=`));
}

describe.runIf(sqlite)('passkeys', () => {
  const clock = new ManualClock(Date.now());
  // A registration challenge's five minutes must be able to run out while the sign-in that asked
  // for it is still recent enough to register (test/http/recent-sign-in.test.ts covers the default).
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN, REAUTH_MINUTES: '10' }, clock });

  const registrationOptions = async (cookie: string, body?: object) => {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie }, ...(body ? { payload: body } : {}) });
    expect(response.statusCode).toBe(200);
    return json<CreationOptions>(response);
  };
  const postRegistration = (cookie: string, payload: object) => ctx.app.inject({ method: 'POST', url: '/account/passkeys', headers: { cookie }, payload });

  /** Registers a passkey for the session's user; the authenticator's registration response went through. */
  const register = async (cookie: string, authenticator = new SoftwareAuthenticator(), name = 'Laptop') => {
    const options = await registrationOptions(cookie);
    const response = await postRegistration(cookie, { response: authenticator.register(options, { origin: ORIGIN }), name });
    expect(response.statusCode).toBe(201);
    return authenticator;
  };

  const loginOptions = async () => {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options' });
    expect(response.statusCode).toBe(200);
    return { options: json<RequestOptions>(response), cookie: cookiePair(setCookieLine(response, 'gh.passkey')!), setCookie: setCookieLine(response, 'gh.passkey')! };
  };
  const postLogin = (payload: object, cookie?: string) =>
    ctx.app.inject({ method: 'POST', url: '/account/login/passkey', payload, ...(cookie === undefined ? {} : { headers: { cookie } }) });
  /** One sign-in: options, an assertion over their challenge, the answer. */
  const signInWithPasskey = async (authenticator: SoftwareAuthenticator, overrides: Partial<Parameters<SoftwareAuthenticator['assert']>[1]> = {}) => {
    const { options, cookie } = await loginOptions();
    return postLogin({ response: authenticator.assert(options, { origin: ORIGIN, ...overrides }) }, cookie);
  };

  const auditOf = async (type: string) => (await ctx.services.store.audit.list({ limit: 200 })).filter((event) => event.type === type);
  const userById = async (id: number) => (await ctx.services.store.users.findById(id))!;
  /** A cookie for a user who has no password: a session opened by the service itself. */
  const sessionCookieOf = async (user: User) => {
    const session = await ctx.services.sessions.signIn(user, { persistent: false, method: 'passkey' });
    return `gh.auth=${authCookieProtector(ctx.services.keyRing.secrets.cookie).protect(session.token)}`;
  };
  const expectSignInFailure = (response: LightMyRequestResponse) => {
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(json(response)).toMatchObject({ succeeded: false });
    expect(json(response)).not.toHaveProperty('isNotAllowed');
    expect(authSetCookie(response)).toBeUndefined();
  };

  it('registers a passkey and signs in with it: user verification makes it both factors', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: true });
    const options = await registrationOptions(cookie);
    expect(options.rp.id).toBe(RP_ID);
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(String(user.id));
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' });
    expect(options.excludeCredentials).toEqual([]);
    const created = await postRegistration(cookie, { response: authenticator.register(options, { origin: ORIGIN }), name: 'Phone' });
    expect(created.statusCode).toBe(201);
    expect(json(created)).toEqual({ id: authenticator.credentialId, name: 'Phone', createdAt: new Date(clock.now()).toISOString() });
    expect(await auditOf('passkey.added')).toMatchObject([{ userId: user.id, detail: { credentialId: authenticator.credentialId, name: 'Phone' } }]);
    const [mail] = await ctx.services.store.outbox.list({ recipient: user.email, limit: 1 });
    expect(mail!.subject).toBe('A passkey was added to your account');

    // The next options exclude it.
    expect((await registrationOptions(cookie)).excludeCredentials).toEqual([expect.objectContaining({ id: authenticator.credentialId })]);

    const { options: requestOptions, setCookie } = await loginOptions();
    expect(requestOptions).toMatchObject({ rpId: RP_ID, allowCredentials: [], userVerification: 'preferred' });
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Max-Age=300/);

    const signedIn = await signInWithPasskey(authenticator);
    expect(signedIn.statusCode).toBe(200);
    expect(json(signedIn)).toEqual({ succeeded: true });
    expect(signedIn.headers['cache-control']).toBe('no-store');
    const auth = cookiePair(authSetCookie(signedIn)!);
    const me = await ctx.app.inject({ url: '/me', headers: { cookie: auth } });
    expect(me.body).toBe(user.email);
    expect((await auditOf('signin.succeeded')).at(0)).toMatchObject({ userId: user.id, detail: { factor: 'passkey' } });

    // Neither challenge nor signature reaches the log, even when a check fails.
    const failed = await signInWithPasskey(authenticator, { origin: 'http://localhost:4000' });
    expect(failed.statusCode).toBe(401);
    const logs = ctx.logs.join('');
    expect(logs).toContain('a passkey assertion failed verification');
    expect(logs).not.toContain(requestOptions.challenge);
    expect(logs).not.toContain(options.challenge);

    const listed = await ctx.app.inject({ url: '/account/passkeys', headers: { cookie: auth } });
    expect(json(listed)).toEqual([
      { id: authenticator.credentialId, name: 'Phone', createdAt: new Date(clock.now()).toISOString(), lastUsedAt: new Date(clock.now()).toISOString(), backedUp: true },
    ]);
  });

  it('takes the options without a body or with {}, and refuses any other body', async () => {
    const { cookie } = await signInWithCookie(ctx);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie } })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie }, payload: {} })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options', payload: {} })).statusCode).toBe(200);
    const extra = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options', payload: { userName: 'ada' } });
    expect(extra.statusCode).toBe(400);
    expect(extra.headers['content-type']).toContain('application/problem+json');
    const longName = await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie }, payload: { name: 'x'.repeat(65) } });
    expect(longName.statusCode).toBe(400);
  });

  it('names a passkey by the options when the registration names none, else by its number', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const first = new SoftwareAuthenticator();
    const named = await registrationOptions(cookie, { name: 'Work key' });
    expect(json(await postRegistration(cookie, { response: first.register(named, { origin: ORIGIN }) }))).toMatchObject({ name: 'Work key' });
    const second = new SoftwareAuthenticator();
    const unnamed = await registrationOptions(cookie);
    expect(json(await postRegistration(cookie, { response: second.register(unnamed, { origin: ORIGIN }) }))).toMatchObject({ name: 'Passkey 2' });
  });

  it('refuses a registration from another origin, for another RP ID, over a spent, expired or other session’s challenge', async () => {
    const { user, password, cookie } = await signInWithCookie(ctx);
    const refused = async (response: LightMyRequestResponse) => {
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(json<{ errors: Record<string, unknown> }>(response).errors).toHaveProperty('response');
    };
    const authenticator = new SoftwareAuthenticator();

    await refused(await postRegistration(cookie, { response: authenticator.register(await registrationOptions(cookie), { origin: 'http://evil.localhost:3000' }) }));
    await refused(await postRegistration(cookie, { response: authenticator.register(await registrationOptions(cookie), { origin: ORIGIN, rpId: 'example.com' }) }));
    await refused(await postRegistration(cookie, { response: authenticator.register(await registrationOptions(cookie), { origin: ORIGIN, type: 'webauthn.get' }) }));

    // Each challenge works once: the same response again is refused.
    const options = await registrationOptions(cookie);
    const response = authenticator.register(options, { origin: ORIGIN });
    expect((await postRegistration(cookie, { response })).statusCode).toBe(201);
    await refused(await postRegistration(cookie, { response }));
    // …and a second authenticator cannot use it either.
    await refused(await postRegistration(cookie, { response: new SoftwareAuthenticator().register(options, { origin: ORIGIN }) }));

    // Five minutes.
    const late = await registrationOptions(cookie);
    clock.advance(5 * 60_000 + 1);
    await refused(await postRegistration(cookie, { response: new SoftwareAuthenticator().register(late, { origin: ORIGIN }) }));

    // Bound to the session that asked: the same user's other session cannot answer it.
    const other = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    const otherCookie = cookiePair(authSetCookie(other)!);
    const askedHere = await registrationOptions(cookie);
    await refused(await postRegistration(otherCookie, { response: new SoftwareAuthenticator().register(askedHere, { origin: ORIGIN }) }));

    // A credential registered already (here, by another user) is refused.
    const { cookie: stranger } = await signInWithCookie(ctx);
    await refused(await postRegistration(stranger, { response: authenticator.register(await registrationOptions(stranger), { origin: ORIGIN }) }));
    expect(json<unknown[]>(await ctx.app.inject({ url: '/account/passkeys', headers: { cookie } }))).toHaveLength(1);
  });

  it('refuses malformed registrations with 400 before verifying anything', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const options = await registrationOptions(cookie);
    const response = new SoftwareAuthenticator().register(options, { origin: ORIGIN });
    for (const payload of [{}, { response, extra: 1 }, { response: { ...response, type: 'password' } }, { response, name: '' }, { response, name: 'a\u0000b' }, { response, name: 'x'.repeat(65) }]) {
      const answer = await postRegistration(cookie, payload);
      expect(answer.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
    }
    // None of them spent the challenge.
    expect((await postRegistration(cookie, { response })).statusCode).toBe(201);
  });

  it('refuses a sign-in from another origin or for another RP ID, counting it on the account', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    expectSignInFailure(await signInWithPasskey(authenticator, { origin: 'https://localhost:3000' }));
    expectSignInFailure(await signInWithPasskey(authenticator, { rpId: 'example.com' }));
    expectSignInFailure(await signInWithPasskey(authenticator, { userHandle: Buffer.from('999').toString('base64url') }));
    expect((await userById(user.id)).accessFailedCount).toBe(3);
    expect((await auditOf('signin.failed')).map((event) => event.detail?.reason)).toEqual(['passkey-verification', 'passkey-verification', 'passkey-verification']);
    // A good one still works, and resets the count.
    expect((await signInWithPasskey(authenticator)).statusCode).toBe(200);
    expect((await userById(user.id)).accessFailedCount).toBe(0);
  });

  it('spends the challenge: a replayed sign-in, a missing cookie and an expired challenge are refused', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    const { options, cookie: challengeCookie } = await loginOptions();
    const assertion = authenticator.assert(options, { origin: ORIGIN });
    const first = await postLogin({ response: assertion }, challengeCookie);
    expect(first.statusCode).toBe(200);
    expect(setCookieLine(first, 'gh.passkey')).toMatch(/Max-Age=0/);
    // The same request again (cookie and all): the challenge is spent.
    expectSignInFailure(await postLogin({ response: assertion }, challengeCookie));
    // An assertion without the cookie.
    const { options: fresh } = await loginOptions();
    expectSignInFailure(await postLogin({ response: authenticator.assert(fresh, { origin: ORIGIN }) }));
    // Five minutes: the cookie outlives nothing, and neither does the challenge.
    const { options: late, cookie: lateCookie } = await loginOptions();
    clock.advance(5 * 60_000 + 1);
    expectSignInFailure(await postLogin({ response: authenticator.assert(late, { origin: ORIGIN }) }, lateCookie));
    expect((await auditOf('signin.failed')).map((event) => event.detail?.reason)).toEqual(['spent-challenge', 'spent-challenge', 'spent-challenge']);
    expect((await userById(user.id)).accessFailedCount).toBe(3);
  });

  it('refuses a challenge cookie of another flow: another browser’s sign-in, or a registration', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    const mine = await loginOptions();
    const theirs = await loginOptions();
    // Signed over the other browser's challenge, sent with this browser's cookie.
    expectSignInFailure(await postLogin({ response: authenticator.assert(theirs.options, { origin: ORIGIN }) }, mine.cookie));
    // A registration's challenge presented at sign-in.
    const registration = await registrationOptions(cookie);
    const again = await loginOptions();
    expectSignInFailure(await postLogin({ response: authenticator.assert({ challenge: registration.challenge, rpId: RP_ID }, { origin: ORIGIN }) }, again.cookie));
    // Their own flow still works for the other browser.
    expect((await postLogin({ response: authenticator.assert(theirs.options, { origin: ORIGIN }) }, theirs.cookie)).statusCode).toBe(200);
  });

  it('refuses a cloned authenticator whose counter went backwards, and audits passkey.refused', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const original = await register(cookie);
    expect((await signInWithPasskey(original)).statusCode).toBe(200);
    const clone = original.clone();
    expect((await signInWithPasskey(original)).statusCode).toBe(200);
    expect((await signInWithPasskey(original)).statusCode).toBe(200);
    // The clone is at 2 while the original reached 3.
    expectSignInFailure(await signInWithPasskey(clone));
    // An equal counter is no better.
    expectSignInFailure(await signInWithPasskey(clone, { counter: 3 }));
    const refused = await auditOf('passkey.refused');
    expect(refused).toHaveLength(2);
    expect(refused.at(-1)).toMatchObject({ userId: user.id, detail: { credentialId: original.credentialId, reason: 'counter', storedCounter: 3, presentedCounter: 2 } });
    expect((await userById(user.id)).accessFailedCount).toBe(2);
    expect((await signInWithPasskey(original)).statusCode).toBe(200);
  });

  it('allows counters that stay 0', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const synced = await register(cookie, new SoftwareAuthenticator({ zeroCounter: true, backupEligible: true, backedUp: true }));
    expect((await signInWithPasskey(synced)).statusCode).toBe(200);
    expect((await signInWithPasskey(synced)).statusCode).toBe(200);
    expect(await auditOf('passkey.refused')).toEqual([]);
  });

  it('refuses an unknown credential without counting anything', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    await register(cookie);
    const stranger = new SoftwareAuthenticator();
    stranger.userHandle = Buffer.from(String(user.id)).toString('base64url');
    expectSignInFailure(await signInWithPasskey(stranger, { rpId: RP_ID }));
    expect((await userById(user.id)).accessFailedCount).toBe(0);
    expect((await auditOf('signin.failed')).map((event) => [event.userId, event.detail?.reason])).toEqual([[null, 'unknown-passkey']]);
  });

  it('asks for the second factor after a passkey without user verification, and not after one with it', async () => {
    const twoFactor = await userWithAuthenticator(ctx, clock);
    const authenticator = await register(twoFactor.auth);
    const withoutUv = await signInWithPasskey(authenticator, { uv: false });
    expect(withoutUv.statusCode).toBe(200);
    expect(json(withoutUv)).toEqual({ succeeded: false, requiresTwoFactor: true });
    expect(authSetCookie(withoutUv)).toBeUndefined();
    const pending = cookiePair(setCookieLine(withoutUv, 'gh.twofactor')!);
    clock.advance(30_000);
    const second = await ctx.app.inject({ method: 'POST', url: '/account/login/2fa', payload: { code: totpCode(twoFactor.sharedKey, 0, clock.now()) }, headers: { cookie: pending } });
    expect(second.statusCode).toBe(200);
    expect(authSetCookie(second)).toBeDefined();

    const withUv = await signInWithPasskey(authenticator);
    expect(json(withUv)).toEqual({ succeeded: true });
    expect(authSetCookie(withUv)).toBeDefined();
  });

  it('signs in with one factor a user without two-factor whose passkey skips user verification', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    expect(json(await signInWithPasskey(authenticator, { uv: false }))).toEqual({ succeeded: true });
  });

  it('refuses locked accounts whatever the passkey, and reveals an unconfirmed e-mail only to a valid one', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    await ctx.services.store.users.setAdminLock(user.id, true);
    expectSignInFailure(await signInWithPasskey(authenticator));
    await ctx.services.store.users.setAdminLock(user.id, false);

    const maxAttempts = ctx.services.config.lockoutMaxAttempts;
    for (let attempt = 0; attempt < maxAttempts; attempt++) expectSignInFailure(await signInWithPasskey(authenticator, { origin: 'http://localhost:4000' }));
    expect((await auditOf('lockout')).map((event) => event.userId)).toEqual([user.id]);
    expectSignInFailure(await signInWithPasskey(authenticator));
    clock.advance(ctx.services.config.lockoutSeconds * 1000 + 1);
    expect((await signInWithPasskey(authenticator)).statusCode).toBe(200);

    const { user: unconfirmed, password } = await ctx.createUser({ emailConfirmed: false });
    const unconfirmedCookie = await sessionCookieOf(unconfirmed);
    const theirs = await register(unconfirmedCookie);
    expectSignInFailure(await signInWithPasskey(theirs, { origin: 'http://localhost:4000' }));
    const valid = await signInWithPasskey(theirs);
    expect(valid.statusCode).toBe(401);
    expect(json(valid)).toMatchObject({ succeeded: false, isNotAllowed: true });
    expect(password).toBeDefined();
  });

  it('refuses the passkey of a deleted user as unknown', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    await ctx.services.store.users.delete(user.id);
    expectSignInFailure(await signInWithPasskey(authenticator));
  });

  it('renames and removes only the caller’s own passkeys: another user’s id is 404', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const mine = await register(cookie);
    const { cookie: otherCookie } = await signInWithCookie(ctx);
    const theirs = await register(otherCookie);
    const patch = (id: string, name: unknown, as = cookie) => ctx.app.inject({ method: 'PATCH', url: `/account/passkeys/${id}`, headers: { cookie: as }, payload: { name } });
    expect((await patch(theirs.credentialId, 'Mine now')).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/account/passkeys/${theirs.credentialId}`, headers: { cookie } })).statusCode).toBe(404);
    expect((await patch(mine.credentialId, '')).statusCode).toBe(400);
    expect((await patch(mine.credentialId, 'x'.repeat(65))).statusCode).toBe(400);
    expect((await patch('not base64url!', 'Name')).statusCode).toBe(400);
    expect((await patch(mine.credentialId, ' Desk key ')).statusCode).toBe(204);
    expect(json<{ name: string }[]>(await ctx.app.inject({ url: '/account/passkeys', headers: { cookie } }))[0]!.name).toBe('Desk key');
    expect(json<{ name: string }[]>(await ctx.app.inject({ url: '/account/passkeys', headers: { cookie: otherCookie } }))[0]!.name).toBe('Laptop');
  });

  it('removes a passkey as a security change: other sessions end, the asking one is re-issued', async () => {
    const { user, password, cookie } = await signInWithCookie(ctx);
    const authenticator = await register(cookie);
    const other = cookiePair(authSetCookie(await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } }))!);
    const removed = await ctx.app.inject({ method: 'DELETE', url: `/account/passkeys/${authenticator.credentialId}`, headers: { cookie } });
    expect(removed.statusCode).toBe(204);
    const reissued = cookiePair(authSetCookie(removed)!);
    expect((await ctx.app.inject({ url: '/account/passkeys', headers: { cookie: reissued } })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/account/passkeys', headers: { cookie: other } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/account/passkeys', headers: { cookie } })).statusCode).toBe(401);
    expect(await auditOf('passkey.removed')).toMatchObject([{ userId: user.id, detail: { credentialId: authenticator.credentialId } }]);
    expect((await ctx.services.store.outbox.list({ recipient: user.email, limit: 1 }))[0]!.subject).toBe('A passkey was removed from your account');
    expectSignInFailure(await signInWithPasskey(authenticator));
  });

  it('keeps the last way in: the only passkey of a user without a password cannot be removed', async () => {
    const email = `passwordless-${process.pid}@example.com`;
    const user = await ctx.services.store.users.create({ email, normalizedEmail: email, userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: clock.now() });
    let cookie = await sessionCookieOf(user);
    const first = await register(cookie);
    const second = await register(cookie, new SoftwareAuthenticator(), 'Backup');
    const removed = await ctx.app.inject({ method: 'DELETE', url: `/account/passkeys/${first.credentialId}`, headers: { cookie } });
    expect(removed.statusCode).toBe(204);
    cookie = cookiePair(authSetCookie(removed)!);
    const last = await ctx.app.inject({ method: 'DELETE', url: `/account/passkeys/${second.credentialId}`, headers: { cookie } });
    expect(last.statusCode).toBe(409);
    expect(last.headers['content-type']).toContain('application/problem+json');
    expect((await signInWithPasskey(second)).statusCode).toBe(200);
  });

  it('refuses an API-key caller at the passkey routes', async () => {
    const key = await ctx.apiKey();
    expect((await ctx.app.inject({ url: '/account/passkeys', headers: { 'x-api-key': key } })).statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { 'x-api-key': key } })).statusCode).toBe(403);
  });
});

describe.runIf(sqlite)('passkey sign-in rate limits', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN, RATE_LIMIT_ACCOUNT_PER_MINUTE: '2' } });

  it('counts sign-ins per account (the user the passkey names) and IP', async () => {
    const { user } = await ctx.createUser();
    const authenticator = new SoftwareAuthenticator();
    authenticator.userHandle = Buffer.from(String(user.id)).toString('base64url');
    const attempt = async () => {
      const options = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options' });
      const cookie = cookiePair(setCookieLine(options, 'gh.passkey')!);
      return ctx.app.inject({ method: 'POST', url: '/account/login/passkey', headers: { cookie }, payload: { response: authenticator.assert(json<RequestOptions>(options), { origin: ORIGIN }) } });
    };
    expect((await attempt()).statusCode).toBe(401);
    expect((await attempt()).statusCode).toBe(401);
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });
});

describe.runIf(sqlite)('passkeys without a host name', () => {
  const origin = 'http://127.0.0.1:3000';
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: origin } });

  it('answer with PUBLIC_URL’s IP address as the RP ID, for clients that are not browsers, and the start warns once', async () => {
    expect(ctx.logs.filter((line) => line.includes('browsers refuse'))).toHaveLength(1);
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    const creation = await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie } });
    expect(creation.statusCode).toBe(200);
    const options = json<CreationOptions>(creation);
    expect(options.rp.id).toBe('127.0.0.1');
    const created = await ctx.app.inject({ method: 'POST', url: '/account/passkeys', headers: { cookie }, payload: { response: authenticator.register(options, { origin }) } });
    expect(created.statusCode).toBe(201);
    const request = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options' });
    const challengeCookie = cookiePair(setCookieLine(request, 'gh.passkey')!);
    const signedIn = await ctx.app.inject({
      method: 'POST',
      url: '/account/login/passkey',
      headers: { cookie: challengeCookie },
      payload: { response: authenticator.assert(json<RequestOptions>(request), { origin }) },
    });
    expect(signedIn.statusCode).toBe(200);
    expect(authSetCookie(signedIn)).toBeDefined();
  });
});
