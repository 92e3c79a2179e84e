/** A signed-in user with the authenticator on, for tests of what two-factor guards. */
import { expect } from 'vitest';
import type { Clock } from '../../src/platform/clock.ts';
import { authSetCookie, cookiePair } from './auth-cookie.ts';
import { json, type TestApp } from './test-app.ts';
import { totpCode } from './totp.ts';

export interface TwoFactorUser {
  readonly email: string;
  readonly password: string;
  readonly sharedKey: string;
  readonly recoveryCodes: string[];
  /** The Cookie header of the session that turned two-factor on. */
  readonly auth: string;
}

/**
 * Creates a confirmed user, signs in, sets up the authenticator and turns it on with its current
 * code (by `clock`, the app's clock), all over HTTP.
 */
export async function userWithAuthenticator(ctx: TestApp, clock: Clock, input: { email?: string } = {}): Promise<TwoFactorUser> {
  const { user, password } = await ctx.createUser(input);
  const signedIn = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
  const first = cookiePair(authSetCookie(signedIn)!);
  const setUp = await ctx.app.inject({ method: 'POST', url: '/account/2fa/authenticator', payload: {}, headers: { cookie: first } });
  expect(setUp.statusCode).toBe(200);
  const { sharedKey } = json<{ sharedKey: string }>(setUp);
  const enabled = await ctx.app.inject({ method: 'POST', url: '/account/2fa/enable', payload: { code: totpCode(sharedKey, 0, clock.now()) }, headers: { cookie: first } });
  expect(enabled.statusCode).toBe(200);
  const { recoveryCodes } = json<{ recoveryCodes: string[] }>(enabled);
  return { email: user.email, password, sharedKey, recoveryCodes, auth: cookiePair(authSetCookie(enabled)!) };
}

/** A 6-digit code that is not `sharedKey`'s at `now` nor one step either side. */
export function wrongCode(sharedKey: string, now: number): string {
  const near = new Set([-1, 0, 1].map((offset) => totpCode(sharedKey, offset, now)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}
