/**
 * SEC-17 — `alg: none`. Pins that an unsigned JWT is never a bearer credential, whatever the
 * spelling of `none` (`none`, `None`, `NONE`, `nOnE`), with an empty signature segment or with
 * the segment left out, and with the rest of the token (kid, typ, claims) exactly as the service
 * would issue it. Each answer is 401 with `WWW-Authenticate: Bearer error="invalid_token", …`.
 * The verifier must pass an explicit algorithm allow-list (RFC 8725 §2.1, §3.1;
 * CVE-2022-23540).
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';
import { baselineClaims, baselineHeader, expectInvalidToken, forge, segment } from './jwt-forge.ts';

const engines = await testEngines();

const SPELLINGS = ['none', 'None', 'NONE', 'nOnE'];

describe.each(engines)('JWT alg "none" on $engine (SEC-17)', (engine) => {
  const ctx = useTestApp(engine);

  it('accepts the unmodified forged token (baseline: the negative cases differ only in alg)', async () => {
    const { user } = await ctx.createUser({ userName: 'alg-none-user' });
    const response = await ctx.app.inject({ url: '/me', headers: bearer(await forge(ctx, user)) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('alg-none-user');
  });

  for (const alg of SPELLINGS) {
    it(`refuses alg "${alg}" with an empty signature segment`, async () => {
      const { user } = await ctx.createUser();
      const token = `${segment({ ...baselineHeader(ctx), alg })}.${segment(baselineClaims(ctx, user))}.`;
      const response = await ctx.app.inject({ url: '/me', headers: bearer(token) });
      expectInvalidToken(response, alg);
      expect(response.body).not.toContain(user.email);
    });

    it(`refuses alg "${alg}" with the signature segment left out`, async () => {
      const { user } = await ctx.createUser();
      const token = `${segment({ ...baselineHeader(ctx), alg })}.${segment(baselineClaims(ctx, user))}`;
      expectInvalidToken(await ctx.app.inject({ url: '/me', headers: bearer(token) }), alg);
    });

    it(`refuses alg "${alg}" with typ JWT and no kid (the classic forgery)`, async () => {
      const { user } = await ctx.createUser();
      const token = `${segment({ alg, typ: 'JWT' })}.${segment(baselineClaims(ctx, user))}.`;
      expectInvalidToken(await ctx.app.inject({ url: '/me', headers: bearer(token) }), alg);
    });
  }

  it('refuses alg "none" followed by a genuine token signature', async () => {
    // A verifier that honoured the header would skip the signature altogether.
    const { user } = await ctx.createUser();
    const genuine = await forge(ctx, user);
    const [, payload, signature] = genuine.split('.');
    const token = `${segment({ ...baselineHeader(ctx), alg: 'none' })}.${payload}.${signature}`;
    expectInvalidToken(await ctx.app.inject({ url: '/me', headers: bearer(token) }));
  });

  it('refuses an unsigned token on a policy endpoint too (no route skips the check)', async () => {
    const { user } = await ctx.createUser({ claims: [{ type: 'subscription', value: 'premium' }] });
    const claims = { ...baselineClaims(ctx, user), subscription: 'premium' };
    const token = `${segment({ ...baselineHeader(ctx), alg: 'none' })}.${segment(claims)}.`;
    expectInvalidToken(await ctx.app.inject({ url: '/content/premium', headers: bearer(token) }));
  });
});
