import { describe, expect, it } from 'vitest';
import { AuthenticateResult, type AuthenticationHandler, COOKIES_SCHEME } from '../security/authentication/index.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import type { RevocationEvent } from '../store/ports.ts';
import { SocketCredential } from './socket-credential.ts';

/** A Cookies-like scheme whose answers the test sets, one per call. */
function scheme(name: string, answers: (() => AuthenticateResult | Promise<AuthenticateResult>)[]): AuthenticationHandler {
  return {
    scheme: name,
    authenticate: () => {
      const next = answers.shift();
      if (next === undefined) throw new Error('no answer left');
      return next();
    },
    challenge: () => ({}),
  };
}

const principal = (sub: string, role: string) => new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', sub), new Claim('role', role)], COOKIES_SCHEME)]);
const event = (kind: RevocationEvent['kind'], subject: string): RevocationEvent => ({ id: 1, kind, subject, claimsStamp: null, securityStamp: null, at: 0 });

describe('SocketCredential', () => {
  it('takes the principal and end of each successful re-check, and no longer holds past its end', async () => {
    const handler = scheme(COOKIES_SCHEME, [
      () => AuthenticateResult.success(COOKIES_SCHEME, principal('7', 'Admin'), 1_000),
      () => AuthenticateResult.success(COOKIES_SCHEME, principal('7', 'User'), 2_000),
      () => AuthenticateResult.success(COOKIES_SCHEME, principal('7', 'User'), 2_000),
    ]);
    const credential = (await SocketCredential.open(handler, { headers: {} }))!;
    expect(credential.principal.isInRole('Admin')).toBe(true);
    expect(await credential.recheck(() => 1_500)).toBe(true);
    expect(credential.principal.isInRole('Admin')).toBe(false);
    expect(credential.expiresAt).toBe(2_000);
    expect(await credential.recheck(() => 2_000)).toBe(false);
  });

  it('is refused when the scheme fails, and anonymous when the scheme finds no credential', async () => {
    expect(await SocketCredential.open(scheme('Bearer', [() => AuthenticateResult.fail('Bearer', 'bad')]), { headers: {} })).toBeNull();
    const anonymous = await SocketCredential.open(scheme(COOKIES_SCHEME, [() => AuthenticateResult.noResult()]), { headers: {} });
    expect(anonymous?.principal.isAuthenticated).toBe(false);
    expect(anonymous?.concerns(event('user', '7'))).toBe(false);
  });

  it('runs a check asked for during one that throws, and settles after both', async () => {
    let release!: () => void;
    const handler = scheme(COOKIES_SCHEME, [
      () => AuthenticateResult.success(COOKIES_SCHEME, principal('7', 'Admin')),
      () => new Promise((_, reject) => (release = () => reject(new Error('store unreachable')))),
      () => AuthenticateResult.success(COOKIES_SCHEME, principal('7', 'User')),
    ]);
    const credential = (await SocketCredential.open(handler, { headers: {} }))!;
    const first = credential.recheck(() => 0);
    const second = credential.recheck(() => 0);
    const settled = credential.settled();
    release();
    await expect(first).rejects.toThrow('store unreachable');
    expect(await second).toBe(true);
    await settled;
    expect(credential.principal.isInRole('User')).toBe(true);
  });

  it('is concerned by the events that can change its scheme’s credential', async () => {
    const open = async (name: string, sub: string | null) =>
      (await SocketCredential.open(
        scheme(name, [() => AuthenticateResult.success(name, sub === null ? new ClaimsPrincipal([new ClaimsIdentity([new Claim('client', 'c')], name)]) : principal(sub, 'User'))]),
        { headers: {} },
      ))!;
    const bearer = await open('Bearer', '7');
    const cookie = await open(COOKIES_SCHEME, '7');
    const apiKey = await open('ApiKey', null);
    expect(['user', 'user-deleted', 'session'].map((kind) => bearer.concerns(event(kind as RevocationEvent['kind'], '7')))).toEqual([true, true, false]);
    expect(bearer.concerns(event('user', '8'))).toBe(false);
    expect(bearer.concerns(event('signing-key', 'kid'))).toBe(true);
    // A family event names a family, not a user: every token socket looks again (in memory).
    expect(bearer.concerns(event('family', '12'))).toBe(true);
    expect(cookie.concerns(event('family', '12'))).toBe(false);
    expect(apiKey.concerns(event('family', '12'))).toBe(false);
    expect(['user', 'user-deleted', 'session'].map((kind) => cookie.concerns(event(kind as RevocationEvent['kind'], '7')))).toEqual([true, true, true]);
    expect(cookie.concerns(event('session', '8'))).toBe(false);
    expect(cookie.concerns(event('signing-key', 'kid'))).toBe(false);
    expect(apiKey.concerns(event('api-key', 'abc'))).toBe(true);
    expect(apiKey.concerns(event('user', '7'))).toBe(false);
  });

  it('is concerned by the events an application scheme declares, and by none when it declares none', async () => {
    const declaring = { ...scheme('Gateway', [() => AuthenticateResult.success('Gateway', principal('7', 'User'))]), revocations: { ofTheUser: ['user-deleted'] as const } };
    const gateway = (await SocketCredential.open(declaring, { headers: {} }))!;
    expect(gateway.concerns(event('user-deleted', '7'))).toBe(true);
    expect(gateway.concerns(event('user-deleted', '8'))).toBe(false);
    expect(gateway.concerns(event('user', '7'))).toBe(false);
    const silent = (await SocketCredential.open(scheme('Hmac', [() => AuthenticateResult.success('Hmac', principal('7', 'User'))]), { headers: {} }))!;
    expect(['user', 'user-deleted', 'session', 'family', 'api-key', 'signing-key'].some((kind) => silent.concerns(event(kind as RevocationEvent['kind'], '7')))).toBe(false);
  });
});
