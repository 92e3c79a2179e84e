/**
 * SEC-31, SEC-32 — malformed tokens and Authorization header parsing. Pins that:
 *   - tokens with 2 or 5 segments (JWE), a 100 KB token, a header of deeply nested JSON (within
 *     and beyond the length cap), a non-base64url or non-JSON segment, and a correctly signed
 *     non-JSON payload are refused with 401 `invalid_token`, quickly, and never with a 500;
 *   - the scheme name is case-insensitive (`bearer <t>`, `BEARER <t>` accepted), but the
 *     syntax is otherwise exact: `Bearer  <t>` (two spaces), `Bearer` alone, a trailing space,
 *     a repeated Authorization header → 401 deterministically;
 *   - `Authorization: Basic …` on a bearer route is never accepted and is not judged as a bad
 *     bearer token: 401 with the plain `Bearer` challenge, no `invalid_token`;
 *   - a token in the query string (`?access_token=`) is never read (RFC 6750 §2.3 is not offered).
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';
import { b64url, baselineClaims, baselineHeader, challengeOf, expectInvalidToken, forge, segment, signCompact } from './jwt-forge.ts';

const engines = await testEngines();

/** Refusals of malformed input should be cheap (the catalogue asks for ~50 ms; generous here). */
const QUICK_MS = 1000;

describe.each(engines)('malformed tokens and Authorization headers on $engine (SEC-31, SEC-32)', (engine) => {
  const ctx = useTestApp(engine);

  async function me(authorization: string | string[]) {
    return ctx.app.inject({ url: '/me', headers: { authorization } as Record<string, string> });
  }

  it('accepts the unmodified forged token (baseline)', async () => {
    const { user } = await ctx.createUser({ userName: 'malformed-user' });
    const response = await ctx.app.inject({ url: '/me', headers: bearer(await forge(ctx, user)) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('malformed-user');
  });

  it('refuses malformed and oversized tokens with 401 invalid_token, quickly, never 500', async () => {
    const { user } = await ctx.createUser();
    const genuine = await forge(ctx, user);
    const [h, p, s] = genuine.split('.') as [string, string, string];
    const key = await ctx.services.keyRing.current.signKey();
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const objectNested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const cases: [string, string][] = [
      ['2 segments', `${h}.${p}`],
      ['1 segment', h],
      ['4 segments', `${h}.${p}.${s}.${s}`],
      ['5 segments (JWE shape)', `${segment({ alg: 'dir', enc: 'A256GCM', kid: baselineHeader(ctx).kid })}..${b64url('iv')}.${p}.${b64url('tag')}`],
      ['empty segments', '..'],
      ['100 KB token', `${h}.${b64url(JSON.stringify({ ...baselineClaims(ctx, user), pad: 'x'.repeat(100 * 1024) }))}.${s}`],
      ['100 KB header', `${b64url(JSON.stringify({ ...baselineHeader(ctx), pad: 'x'.repeat(100 * 1024) }))}.${p}.${s}`],
      ['header nested 10,000 levels', `${b64url(nested(10_000))}.${p}.${s}`],
      ['header object nested 10,000 levels', `${b64url(objectNested(10_000))}.${p}.${s}`],
      ['header nested 2,500 levels (under the length cap)', `${b64url(nested(2_500))}.${p}.${s}`],
      ['header not JSON', `${b64url('{alg:ES256')}.${p}.${s}`],
      ['header JSON null', `${b64url('null')}.${p}.${s}`],
      ['payload not base64url', `${h}.@@@!!!.${s}`],
      ['payload with padding', `${h}.${p}==.${s}`],
      ['payload with base64 (not url) characters', `${h}.${p.replace(/-/g, '+').replace(/_/g, '/')}+/.${s}`],
      ['payload base64url of non-JSON', `${h}.${b64url('not json at all')}.${s}`],
      ['payload of invalid UTF-8', `${h}.${b64url(new Uint8Array([0xff, 0xfe, 0xfd]))}.${s}`],
      ['signature not base64url', `${h}.${p}.***`],
      ['whitespace inside', `${h}. ${p}.${s}`],
      ['NUL inside', `${h}.${p}\u0000.${s}`],
      ['unicode', `${h}.${p}.${s}é`],
    ];
    // A correctly SIGNED token whose payload is not JSON, and one whose header is nested JSON.
    cases.push(['signed non-JSON payload', await signCompact(key, baselineHeader(ctx), 'not json at all')]);
    cases.push(['signed payload nested 2,000 levels', await signCompact(key, baselineHeader(ctx), objectNested(2_000))]);
    for (const [label, token] of cases) {
      const started = performance.now();
      const response = await me(`Bearer ${token}`);
      const elapsed = performance.now() - started;
      expect(response.statusCode, label).not.toBe(500);
      expectInvalidToken(response, label);
      expect(elapsed, label).toBeLessThan(QUICK_MS);
    }
    // The service is still healthy afterwards.
    expect((await ctx.app.inject({ url: '/me', headers: bearer(genuine) })).statusCode).toBe(200);
  });

  it('matches the scheme name case-insensitively: bearer and BEARER are accepted', async () => {
    const { user } = await ctx.createUser({ userName: 'case-user' });
    const token = await forge(ctx, user);
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const response = await me(`${scheme} ${token}`);
      expect(response.statusCode, scheme).toBe(200);
      expect(response.body, scheme).toBe('case-user');
    }
  });

  it('refuses other syntax deterministically: two spaces, no token, trailing text, a tab, quotes', async () => {
    const { user } = await ctx.createUser();
    const token = await forge(ctx, user);
    // Accepted first, so the verified-token cache remembers it: the syntax rules hold for it all the same.
    expect((await me(`Bearer ${token}`)).statusCode).toBe(200);
    for (const header of [`Bearer  ${token}`, 'Bearer', 'Bearer ', `Bearer ${token} extra`, `Bearer\t${token}`, `Bearer "${token}"`, `Bearer ${token},${token}`]) {
      const response = await me(header);
      expectInvalidToken(response, JSON.stringify(header.slice(0, 12)));
    }
  });

  it('does not take another token for a remembered one because they end alike (the cache key is the signature end)', async () => {
    const { user } = await ctx.createUser({ userName: 'remembered-user' });
    const { user: other } = await ctx.createUser({ userName: 'other-user' });
    const token = await forge(ctx, user);
    expect((await me(`Bearer ${token}`)).statusCode).toBe(200);
    const [h, , s] = token.split('.') as [string, string, string];
    // The remembered token's header and signature over another user's claims, and a token whose
    // signature only ends like the remembered one's.
    const otherClaims = `${h}.${segment(baselineClaims(ctx, other))}.${s}`;
    const sameEnd = `${h}.${token.split('.')[1]}.${'A'.repeat(Math.max(0, s.length - 32))}${s.slice(-32)}`;
    for (const [label, forged] of [['other claims', otherClaims], ['same signature end', sameEnd]] as const) {
      const response = await me(`Bearer ${forged}`);
      expectInvalidToken(response, label);
      expect(response.body, label).not.toMatch(/remembered-user|other-user/);
    }
    expect((await me(`Bearer ${token}`)).body).toBe('remembered-user');
  });

  it('refuses a repeated Authorization header instead of silently using one of them', async () => {
    // Node keeps only the FIRST Authorization header in request.headers (it discards duplicates,
    // over a socket and under inject alike); a proxy in front may have judged the LAST one. The
    // scheme says a repeated header is malformed, so the raw headers must be consulted.
    const { user } = await ctx.createUser({ userName: 'repeated-user' });
    const token = await forge(ctx, user);
    for (const headers of [
      [`Bearer ${token}`, `Bearer ${token}`],
      [`Bearer ${token}`, 'Bearer garbage.garbage.garbage'],
      [`Bearer ${token}`, 'Basic YTpi'],
    ]) {
      const repeated = await me(headers);
      expect(repeated.statusCode, headers[1]!.slice(0, 12)).toBe(401);
      expect(repeated.body).not.toContain('repeated-user');
    }
  });

  it('does not accept Basic on /me, and does not judge it as a bad bearer token', async () => {
    const { user, password } = await ctx.createUser();
    for (const credentials of [`${user.email}:${password}`, 'admin:admin', '']) {
      const response = await me(`Basic ${Buffer.from(credentials).toString('base64')}`);
      expect(response.statusCode).toBe(401);
      expect(challengeOf(response)).toBe('Bearer');
      expect(challengeOf(response)).not.toContain('invalid_token');
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    // Other schemes and "Bearer" glued to a token are not bearer credentials either.
    const token = await forge(ctx, user);
    for (const header of [`Digest ${token}`, `Token ${token}`, `JWT ${token}`, token, `Bearer${token}`]) {
      const response = await me(header);
      expect(response.statusCode, header.slice(0, 8)).toBe(401);
    }
  });

  it('never reads a token from the query string', async () => {
    const { user } = await ctx.createUser();
    const token = await forge(ctx, user);
    for (const query of [`access_token=${token}`, `token=${token}`, `bearer=${token}`, `authorization=Bearer%20${token}`]) {
      const response = await ctx.app.inject({ url: `/me?${query}` });
      expect(response.statusCode, query.slice(0, 14)).toBe(401);
      expect(challengeOf(response)).toBe('Bearer');
    }
    // Nor from a form body on a GET, nor from a cookie named like it.
    const cookie = await ctx.app.inject({ url: '/me', headers: { cookie: `access_token=${token}; token=${token}` } });
    expect(cookie.statusCode).toBe(401);
  });
});
