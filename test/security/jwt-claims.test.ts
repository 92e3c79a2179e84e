/**
 * SEC-20, SEC-22, SEC-24..SEC-28 — the claims and header members of a validly signed token.
 * Every token here carries a genuine ES256 signature of the ring's current key, so a refusal can
 * only come from the one member under test. Pins that:
 *   - `exp` is required and a NumericDate, checked with a 30-second skew: now − 31 s is refused
 *     (error_description says it expired), now − 29 s is accepted; missing, a string, `null`,
 *     negative and absurdly far (`1e308`, a token that never expires) are refused (SEC-24);
 *   - `nbf` now + 31 s is refused, now + 29 s accepted; `iat` far in the future is refused (SEC-25);
 *   - `iss` is compared by exact string equality with the single configured issuer: another one,
 *     none, a trailing slash, upper case, or an array are refused (SEC-26);
 *   - `aud` must contain ours: missing, another, an array without ours, look-alikes are refused;
 *     an array that contains ours is accepted (SEC-27);
 *   - only `typ: at+jwt` is an access token: `JWT` or no `typ` (an ID token) is refused (SEC-28);
 *   - `kid` only selects from the ring: unknown, path traversal, SQL, a URL, or none → 401 (SEC-20);
 *   - an unknown critical header (`crit`) makes the token invalid (SEC-22);
 *   - `sub` and `gh_ver` (the stamp version) are required.
 * The service's clock is a ManualClock, so the skew boundaries are exact.
 */
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';
import { baselineClaims, challengeOf, expectInvalidToken, forge, type Members, segment, signCompact } from './jwt-forge.ts';

const engines = await testEngines();

/** A fixed instant, on a whole second. */
const NOW_MS = Date.UTC(2026, 5, 15, 12, 0, 0);
const NOW = NOW_MS / 1000;

describe.each(engines)('JWT claims and header members on $engine (SEC-20, SEC-22, SEC-24..28)', (engine) => {
  const clock = new ManualClock(NOW_MS);
  // Registered before useTestApp's hook: every instance starts at NOW.
  beforeEach(() => clock.set(NOW_MS));
  const ctx = useTestApp(engine, { clock });

  async function user() {
    return (await ctx.createUser({ userName: `claims-${Math.random().toString(36).slice(2, 10)}` })).user;
  }

  async function me(token: string) {
    return ctx.app.inject({ url: '/me', headers: bearer(token) });
  }

  async function expectAccepted(token: string, name: string, label?: string) {
    const response = await me(token);
    expect(response.statusCode, label).toBe(200);
    expect(response.body, label).toBe(name);
  }

  it('accepts the unmodified forged token, and the service\'s own token (baseline)', async () => {
    const subject = await user();
    await expectAccepted(await forge(ctx, subject), subject.userName!);
    await expectAccepted(await ctx.tokenFor(subject), subject.userName!);
    expect(ctx.services.config.jwtIssuer).toBe('http://127.0.0.1:3000');
    expect(ctx.services.config.jwtAudience).toBe('gatehouse');
  });

  describe('exp (SEC-24)', () => {
    it('refuses exp = now − 31 s with an error_description about expiry, accepts now − 29 s (30 s skew)', async () => {
      const subject = await user();
      const expired = await me(await forge(ctx, subject, { claims: { iat: NOW - 600, nbf: NOW - 600, exp: NOW - 31 } }));
      expectInvalidToken(expired);
      expect(challengeOf(expired)).toMatch(/error_description="[^"]*expired[^"]*"/i);
      await expectAccepted(await forge(ctx, subject, { claims: { iat: NOW - 600, nbf: NOW - 600, exp: NOW - 29 } }), subject.userName!);
    });

    it('refuses a genuine token once the clock passes exp + 30 s, not before', async () => {
      const subject = await user();
      const token = await ctx.tokenFor(subject);
      const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
      clock.set((exp + 29) * 1000);
      await expectAccepted(token, subject.userName!);
      clock.set((exp + 31) * 1000);
      expectInvalidToken(await me(token));
    });

    it('refuses exp missing, as a string, null, negative, zero or a boolean', async () => {
      const subject = await user();
      for (const exp of [undefined, '9999999999', String(NOW + 600), null, -1, 0, true, [NOW + 600], { value: NOW + 600 }]) {
        expectInvalidToken(await me(await forge(ctx, subject, { claims: { exp } })), `exp = ${JSON.stringify(exp)}`);
      }
    });

    it('refuses exp = 1e308 and other lifetimes no token of this service has (a token that never expires)', async () => {
      // The service issues tokens for ACCESS_TOKEN_MINUTES (15): a validly signed token claiming
      // to live for centuries was not issued by it and must not outlive every revocation window.
      const subject = await user();
      for (const exp of [1e308, Number.MAX_SAFE_INTEGER, NOW + 10 * 365 * 24 * 3600]) {
        expectInvalidToken(await me(await forge(ctx, subject, { claims: { exp } })), `exp = ${exp}`);
      }
    });
  });

  describe('nbf and iat (SEC-25)', () => {
    it('refuses nbf = now + 31 s, accepts now + 29 s', async () => {
      const subject = await user();
      expectInvalidToken(await me(await forge(ctx, subject, { claims: { nbf: NOW + 31 } })), 'nbf + 31');
      await expectAccepted(await forge(ctx, subject, { claims: { nbf: NOW + 29 } }), subject.userName!, 'nbf + 29');
    });

    it('refuses nbf as a string', async () => {
      const subject = await user();
      expectInvalidToken(await me(await forge(ctx, subject, { claims: { nbf: String(NOW) } })));
    });

    it('refuses iat far in the future (and iat + 31 s), accepts iat + 29 s', async () => {
      const subject = await user();
      for (const iat of [NOW + 3600, NOW + 365 * 24 * 3600, NOW + 31]) {
        const nbf = NOW;
        expectInvalidToken(await me(await forge(ctx, subject, { claims: { iat, nbf, exp: iat + 600 } })), `iat = now + ${iat - NOW}`);
      }
      await expectAccepted(await forge(ctx, subject, { claims: { iat: NOW + 29 } }), subject.userName!);
    });
  });

  describe('iss (SEC-26)', () => {
    it('refuses another issuer, none, a trailing slash, upper case and arrays', async () => {
      const subject = await user();
      const issuer = ctx.services.config.jwtIssuer;
      for (const iss of [
        'https://evil.example',
        undefined,
        null,
        '',
        `${issuer}/`,
        issuer.toUpperCase(),
        'HTTP://127.0.0.1:3000',
        `${issuer} `,
        ['https://evil.example', issuer],
        [issuer],
      ]) {
        expectInvalidToken(await me(await forge(ctx, subject, { claims: { iss } })), `iss = ${JSON.stringify(iss)}`);
      }
    });
  });

  describe('aud (SEC-27)', () => {
    it('refuses a missing audience, another one, an array without ours and look-alikes', async () => {
      const subject = await user();
      const audience = ctx.services.config.jwtAudience;
      for (const aud of [
        undefined,
        null,
        'other-api',
        ['other-api', 'billing'],
        [],
        `${audience}.evil.example`,
        `evil-${audience}`,
        `${audience} `,
        audience.toUpperCase(),
        `https://${audience}`,
      ]) {
        expectInvalidToken(await me(await forge(ctx, subject, { claims: { aud } })), `aud = ${JSON.stringify(aud)}`);
      }
    });

    it('accepts an array that contains ours', async () => {
      const subject = await user();
      const audience = ctx.services.config.jwtAudience;
      await expectAccepted(await forge(ctx, subject, { claims: { aud: ['other-api', audience] } }), subject.userName!);
    });
  });

  describe('typ (SEC-28)', () => {
    it('refuses typ JWT, no typ (an ID token) and other types', async () => {
      const subject = await user();
      for (const typ of ['JWT', undefined, 'jwt', 'id_token', 'application/jwt', 'rt+jwt', 'at+jwt ', 'secevent+jwt']) {
        expectInvalidToken(await me(await forge(ctx, subject, { header: { typ } })), `typ = ${JSON.stringify(typ)}`);
      }
    });

    it('refuses an ID-token-shaped JWT signed with our key (no typ, aud = a client id, nonce)', async () => {
      const subject = await user();
      const idToken = await forge(ctx, subject, {
        header: { typ: undefined },
        claims: { aud: 'some-client-id', nonce: 'n-0S6_WzA2Mj', auth_time: NOW, email_verified: true, gh_ver: undefined },
      });
      expectInvalidToken(await me(idToken));
    });
  });

  describe('kid (SEC-20)', () => {
    it('refuses an unknown kid, path traversal, SQL, a URL, an empty or missing kid, and a non-string kid', async () => {
      const subject = await user();
      const before = await ctx.services.store.keyRing.listActiveSigningKeys();
      for (const kid of [
        'unknown-kid',
        '../../../../dev/null',
        "' UNION SELECT 'k' --",
        "x' OR '1'='1",
        'http://169.254.169.254/latest/meta-data/',
        '',
        undefined,
        42,
        [ctx.services.keyRing.current.kid],
        ctx.services.keyRing.current.kid.toUpperCase(),
        `${ctx.services.keyRing.current.kid} `,
      ]) {
        expectInvalidToken(await me(await forge(ctx, subject, { header: { kid } })), `kid = ${JSON.stringify(kid)}`);
      }
      // The classic traversal attack: kid pointing at an empty file, HMAC with an empty key.
      const header = { alg: 'HS256', typ: 'at+jwt', kid: '../../../../dev/null' };
      const signingInput = `${segment(header)}.${segment(baselineClaims(ctx, subject))}`;
      expectInvalidToken(await me(`${signingInput}.${createHmac('sha256', '').update(signingInput).digest('base64url')}`), 'empty HMAC key');
      // Nothing in the key table moved (no SQL ran from the kid).
      expect(await ctx.services.store.keyRing.listActiveSigningKeys()).toEqual(before);
    });
  });

  describe('crit (SEC-22)', () => {
    it('refuses an unknown critical extension, an empty crit and a non-array crit', async () => {
      const subject = await user();
      const headers: Members[] = [
        { crit: ['x-policy'], 'x-policy': 'require-mfa' },
        { crit: ['x-policy'] },
        { crit: [] },
        { crit: 'exp' },
        { crit: ['exp'], exp: NOW + 600 },
      ];
      for (const header of headers) {
        expectInvalidToken(await me(await forge(ctx, subject, { header })), JSON.stringify(header));
      }
    });
  });

  describe('required claims', () => {
    it('refuses a token without sub or gh_ver, or with a malformed one', async () => {
      const subject = await user();
      const cases: Members[] = [
        { sub: undefined },
        { sub: '' },
        { sub: 'admin' },
        { sub: '0' },
        { sub: `${subject.id}.0` },
        { sub: '-1' },
        { gh_ver: undefined },
        { gh_ver: String(subject.claimsStamp) },
        { gh_ver: 1.5 },
        { gh_ver: null },
        { jti: undefined },
      ];
      for (const claims of cases) {
        expectInvalidToken(await me(await forge(ctx, subject, { claims })), JSON.stringify(claims));
      }
    });

    it('refuses a payload that is not a JSON object, even when correctly signed', async () => {
      const subject = await user();
      const key = await ctx.services.keyRing.current.signKey();
      const header = { alg: 'ES256', kid: ctx.services.keyRing.current.kid, typ: 'at+jwt' };
      for (const payload of ['[]', '"sub"', '123', 'null', '{"sub":"1"', JSON.stringify([baselineClaims(ctx, subject)])]) {
        expectInvalidToken(await me(await signCompact(key, header, payload)), payload.slice(0, 40));
      }
      // Sanity: the same helper with the object payload is accepted.
      await expectAccepted(await signCompact(key, header, JSON.stringify(baselineClaims(ctx, subject))), subject.userName!);
    });
  });
});
