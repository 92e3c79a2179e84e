/**
 * Two-factor sign-in (docs/reference/http.md and docs/reference/membership.md), over HTTP on both engines: the authenticator set-up,
 * the second step with TOTP, e-mail codes and recovery codes, remember-client, `/auth/token` with
 * `twoFactorCode`, and the one failure counter. Codes come from an independent RFC 6238 generator.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { json, useTestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';

const engines = await testEngines();

function setCookie(response: LightMyRequestResponse, name: string): string | undefined {
  return authSetCookie(response, name);
}

describe.each(engines)('two-factor sign-in on $engine', (engine) => {
  const ctx = useTestApp(engine);

  const login = (payload: Record<string, unknown>, cookie?: string) =>
    ctx.app.inject({ method: 'POST', url: '/account/login', payload, ...(cookie ? { headers: { cookie } } : {}) });
  const post = (url: string, cookie: string | undefined, payload: Record<string, unknown> = {}) =>
    ctx.app.inject({ method: 'POST', url, payload, ...(cookie ? { headers: { cookie } } : {}) });

  /** A confirmed user, signed in, who turned the authenticator on. */
  async function userWithAuthenticator() {
    const { user, password } = await ctx.createUser();
    const auth = cookiePair(setCookie(await login({ email: user.email, password }), 'gh.auth')!);
    const setUp = await post('/account/2fa/authenticator', auth);
    expect(setUp.statusCode).toBe(200);
    const { sharedKey, otpauthUri, qrSvg } = json<{ sharedKey: string; otpauthUri: string; qrSvg: string }>(setUp);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(otpauthUri).toContain(`secret=${sharedKey.replace(/ /g, '').toUpperCase()}`);
    expect(qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    // A wrong code is refused (and counted on the failure counter)...
    expect((await post('/account/2fa/enable', auth, { code: '000000' === totpCode(sharedKey) ? '111111' : '000000' })).statusCode).toBe(400);
    // ...and the key is pending until enabled: the sign-in still needs only the password (and resets the count).
    expect(json<{ succeeded: boolean }>(await login({ email: user.email, password })).succeeded).toBe(true);
    const enabled = await post('/account/2fa/enable', auth, { code: totpCode(sharedKey) });
    expect(enabled.statusCode).toBe(200);
    const { recoveryCodes } = json<{ recoveryCodes: string[] }>(enabled);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    // A security change: the session that asked goes on under a new cookie, the old one is dead.
    const renewed = cookiePair(setCookie(enabled, 'gh.auth')!);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: auth } })).statusCode).toBe(401);
    const profile = json<{ twoFactorEnabled: boolean }>(await ctx.app.inject({ url: '/account/profile', headers: { cookie: renewed } }));
    expect(profile.twoFactorEnabled).toBe(true);
    return { user, password, sharedKey, recoveryCodes, auth: renewed };
  }

  async function firstStep(email: string, password: string, cookie?: string) {
    const response = await login({ email, password }, cookie);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ succeeded: false, requiresTwoFactor: true });
    expect(setCookie(response, 'gh.auth')).toBeUndefined();
    return cookiePair(setCookie(response, 'gh.twofactor')!);
  }

  it('asks for the second factor, takes a TOTP code once, and refuses the same code again', async () => {
    const { user, password, sharedKey } = await userWithAuthenticator();
    const pending = await firstStep(user.email, password);
    // The step enabling used accepted the current step: the next one is still within the window.
    const code = totpCode(sharedKey, 1);
    const done = await post('/account/login/2fa', pending, { code });
    expect(done.statusCode).toBe(200);
    expect(json(done)).toEqual({ succeeded: true });
    const auth = cookiePair(setCookie(done, 'gh.auth')!);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: auth } })).statusCode).toBe(200);

    const again = await post('/account/login/2fa', await firstStep(user.email, password), { code });
    expect(again.statusCode).toBe(401);
    expect(json(again)).toMatchObject({ succeeded: false });
  });

  it('refuses the second step without the two-factor cookie, and a tampered one', async () => {
    const { user, password, sharedKey } = await userWithAuthenticator();
    const without = await post('/account/login/2fa', undefined, { code: totpCode(sharedKey, 1) });
    expect(without.statusCode).toBe(401);
    expect(without.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(without)).toMatchObject({ status: 401, succeeded: false });
    const pending = await firstStep(user.email, password);
    const tampered = pending.slice(0, -2) + (pending.endsWith('A') ? 'BB' : 'AA');
    expect((await post('/account/login/2fa', tampered, { code: totpCode(sharedKey, 1) })).statusCode).toBe(401);
  });

  it('takes each recovery code once', async () => {
    const { user, password, recoveryCodes } = await userWithAuthenticator();
    const first = await post('/account/login/recovery', await firstStep(user.email, password), { recoveryCode: recoveryCodes[0] });
    expect(first.statusCode).toBe(200);
    const second = await post('/account/login/recovery', await firstStep(user.email, password), { recoveryCode: recoveryCodes[0] });
    expect(second.statusCode).toBe(401);
    // Lower case and without the dash still works, for another code.
    const loose = recoveryCodes[1]!.replace('-', '').toLowerCase();
    expect((await post('/account/login/recovery', await firstStep(user.email, password), { recoveryCode: loose })).statusCode).toBe(200);
  });

  it('sends a code by e-mail that works once', async () => {
    const { user, password } = await userWithAuthenticator();
    const pending = await firstStep(user.email, password);
    expect((await post('/account/login/2fa/send', pending, { provider: 'Email' })).statusCode).toBe(202);
    const [mail] = await ctx.services.store.outbox.list({ recipient: user.email, limit: 1 });
    const codes = mail!.text.match(/\b\d{6}\b/g);
    expect(codes).toHaveLength(1);
    expect((await post('/account/login/2fa', pending, { code: codes![0], provider: 'Email' })).statusCode).toBe(200);
    expect((await post('/account/login/2fa', await firstStep(user.email, password), { code: codes![0], provider: 'Email' })).statusCode).toBe(401);
  });

  it('remembers the browser when asked, until the next security change', async () => {
    const { user, password, sharedKey } = await userWithAuthenticator();
    const done = await post('/account/login/2fa', await firstStep(user.email, password), { code: totpCode(sharedKey, 1), rememberClient: true });
    const remembered = setCookie(done, 'gh.2fa')!;
    expect(remembered).toMatch(/HttpOnly/i);
    expect(remembered).toMatch(/Max-Age=1209600/);
    const browser = cookiePair(remembered);
    const skipped = await login({ email: user.email, password }, browser);
    expect(json(skipped)).toEqual({ succeeded: true });

    const auth = cookiePair(setCookie(skipped, 'gh.auth')!);
    const changed = await post('/account/password', auth, { currentPassword: password, newPassword: 'another uncommon passphrase' });
    expect(changed.statusCode).toBe(204);
    const afterChange = await login({ email: user.email, password: 'another uncommon passphrase' }, browser);
    expect(json(afterChange)).toEqual({ succeeded: false, requiresTwoFactor: true });
  });

  it('counts wrong codes on the one failure counter and says isLockedOut at the second step', async () => {
    const { user, password, sharedKey } = await userWithAuthenticator();
    const pending = await firstStep(user.email, password);
    const wrong = totpCode(sharedKey, 5);
    for (let attempt = 1; attempt < 5; attempt++) {
      const response = await post('/account/login/2fa', pending, { code: wrong });
      expect(response.statusCode).toBe(401);
      expect(json(response)).toMatchObject({ succeeded: false });
      expect(json<Record<string, unknown>>(response)).not.toHaveProperty('isLockedOut');
    }
    const locking = await post('/account/login/2fa', pending, { code: wrong });
    expect(json(locking)).toMatchObject({ succeeded: false, isLockedOut: true });
    // Even the right code is refused while locked, and the password step reveals nothing.
    expect(json(await post('/account/login/2fa', pending, { code: totpCode(sharedKey, 1) }))).toMatchObject({ isLockedOut: true });
    expect(json(await login({ email: user.email, password }))).toEqual(expect.objectContaining({ succeeded: false }));
    expect(json<Record<string, unknown>>(await login({ email: user.email, password }))).not.toHaveProperty('isLockedOut');
  });

  it('counts wrong passwords and wrong codes on one counter; the right password alone resets nothing', async () => {
    const { user, password, sharedKey } = await userWithAuthenticator();
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await login({ email: user.email, password: 'not the password' })).statusCode).toBe(401);
    }
    // The right password alone does not reset the count: the second step is not done.
    const pending = await firstStep(user.email, password);
    const wrong = totpCode(sharedKey, 5);
    expect(json(await post('/account/login/2fa', pending, { code: wrong }))).not.toHaveProperty('isLockedOut');
    expect(json(await post('/account/login/2fa', pending, { code: wrong }))).not.toHaveProperty('isLockedOut');
    expect(json(await post('/account/login/2fa', pending, { code: wrong }))).toMatchObject({ isLockedOut: true });
    const stored = await ctx.services.store.users.findById(user.id);
    expect(stored!.lockoutEnd).not.toBeNull();
  });

  it('answers /auth/token with requiresTwoFactor, then with a token for a TOTP or recovery code', async () => {
    const { user, password, sharedKey, recoveryCodes } = await userWithAuthenticator();
    const token = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password, ...payload } });
    const asked = await token({});
    expect(asked.statusCode).toBe(401);
    expect(json(asked)).toMatchObject({ succeeded: false, requiresTwoFactor: true });
    expect((await token({ twoFactorCode: totpCode(sharedKey, 1) })).statusCode).toBe(200);
    expect((await token({ twoFactorCode: totpCode(sharedKey, 1) })).statusCode).toBe(401);
    expect((await token({ twoFactorCode: recoveryCodes[2] })).statusCode).toBe(200);
  });

  it('needs a current code to replace the key or turn two-factor off, and off is a security change', async () => {
    const { user, password, sharedKey, auth } = await userWithAuthenticator();
    expect((await post('/account/2fa/authenticator', auth)).statusCode).toBe(400);
    expect((await post('/account/2fa/disable', auth, { code: '12345' })).statusCode).toBe(400);
    const off = await post('/account/2fa/disable', auth, { code: totpCode(sharedKey, 1) });
    expect(off.statusCode).toBe(204);
    expect(json(await login({ email: user.email, password }))).toEqual({ succeeded: true });
    const events = await ctx.services.store.audit.list({ limit: 100 });
    expect(events.filter((event) => event.userId === user.id).map((event) => event.type)).toEqual(
      expect.arrayContaining(['twofactor.enabled', 'twofactor.disabled']),
    );
  });
});
