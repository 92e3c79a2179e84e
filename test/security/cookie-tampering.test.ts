/**
 * SEC-04 / SEC-05: a tampered, truncated, padded or re-encoded auth cookie, and one sealed under
 * another deployment's key ring, are no credential at all: the same 401 (or login redirect) as
 * no cookie, never a 500 or a decryption error, and never the user. On each store engine.
 */
import { describe, expect, it } from 'vitest';
import { authSetCookie, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

describe.each(engines)('tampered auth cookies on $engine', (engine) => {
  const ctx = useTestApp(engine);
  const profile = (value: string) => ctx.app.inject({ url: '/account/profile', headers: { cookie: `gh.auth=${value}` } });

  it('treats every variant of a valid cookie as anonymous, with the same answer as no cookie', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const value = cookie.slice('gh.auth='.length);
    expect((await profile(value)).statusCode).toBe(200);

    const bytes = Buffer.from(value, 'base64url');
    const flipped = [0, Math.floor(bytes.length / 2), bytes.length - 1].map((index) => {
      const copy = Buffer.from(bytes);
      copy[index]! ^= 0x01;
      return copy.toString('base64url');
    });
    const variants = [
      ...flipped,
      value.slice(0, -1),
      `${value}AA`,
      `${value}.junk`,
      bytes.toString('base64'),
      encodeURIComponent(bytes.toString('base64')),
      `${value}==`,
      '',
      'plain.v1.c2Vzc2lvbg',
      'A'.repeat(4000),
    ];
    const anonymous = await ctx.app.inject({ url: '/account/profile' });
    for (const variant of variants) {
      const response = await profile(variant);
      expect(response.statusCode, variant).toBe(401);
      expect(response.body).toBe(anonymous.body);
      expect(response.headers['www-authenticate']).toBe(anonymous.headers['www-authenticate']);
    }
  });

  it("refuses a cookie minted by another deployment's key ring", async () => {
    const other = await startTestApp(await engine.createDatabaseUrl());
    try {
      const { cookie } = await signInWithCookie(other);
      expect((await other.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(200);
      const response = await ctx.app.inject({ url: '/account/profile', headers: { cookie } });
      expect(response.statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('issues a new cookie value at every sign-in, and the one presented at sign-in stops working (SEC-03)', async () => {
    const { user, password, cookie } = await signInWithCookie(ctx);
    const again = await ctx.app.inject({ method: 'POST', url: '/account/login', headers: { cookie }, payload: { email: user.email, password } });
    const renewed = authSetCookie(again)!.split(';')[0]!;
    expect(renewed).not.toBe(cookie);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: renewed } })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(401);
  });
});
