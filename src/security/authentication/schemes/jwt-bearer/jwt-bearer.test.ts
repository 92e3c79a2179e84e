import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import type { AuthenticateResult } from '../../authenticate-result.ts';
import { TOKEN_REFUSALS } from '../bearer/token-refusal.ts';
import { JwtBearerHandler, externalJwtBearer } from './handler.ts';
import { type JwtBearerOptions, JwtBearerOptionsError } from './options.ts';
import { principalOf } from './principal.ts';
import { TokenMemory } from './token-memory.ts';

const ISSUER = 'https://issuer.example.test';
const AUDIENCE = 'https://api.example.test';
const SECRET = 'a shared secret of at least forty-eight bytes, for HS384';

function bearer(token: string) {
  return { headers: { authorization: `Bearer ${token}` } };
}

async function authenticate(handler: JwtBearerHandler, token: string): Promise<AuthenticateResult> {
  return handler.authenticate(bearer(token));
}

function sign(key: CryptoKey | Uint8Array, alg: string, claims: Record<string, unknown> = {}, kid?: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg, ...(kid ? { kid } : {}) })
    .sign(key);
}

describe('options', () => {
  const base: JwtBearerOptions = { secret: SECRET, issuer: ISSUER, audience: AUDIENCE };
  const refused: [string, Partial<JwtBearerOptions> & Record<string, unknown>, string][] = [
    ['no key source', { secret: undefined }, 'exactly one of `authority`, `jwksUrl`, `publicKey`, `secret` is required (none given)'],
    ['two key sources', { jwksUrl: 'https://issuer.example.test/jwks' }, '(jwksUrl, secret given)'],
    ['a short secret', { secret: 'short' }, '`secret` must be at least 32 bytes'],
    ['HS512 with a 56-byte secret', { algorithms: ['HS512'] }, 'HS512 needs a `secret` of at least 64 bytes'],
    ['an asymmetric algorithm with a secret', { algorithms: ['RS256'] }, 'only HS256, HS384 and HS512 are allowed (not RS256)'],
    ['alg none', { algorithms: ['none'] }, 'must not include "none"'],
    ['no audience', { audience: undefined as never }, '`audience` is required'],
    ['an empty audience list', { audience: [] }, '`audience` must be a non-empty string'],
    ['no issuer without an authority', { issuer: undefined }, '`issuer` is required unless it comes from `authority`'],
    ['a bad scheme name', { scheme: 'Bearer token' }, '`scheme` must be a name'],
    ['a negative skew', { clockSkewSeconds: -1 }, '`clockSkewSeconds` must be a number of seconds, at least 0'],
    ['a fractional cache size', { cacheSize: 1.5 }, '`cacheSize` must be a whole number'],
    ['an empty role claim', { roleClaim: '' }, '`roleClaim` must be a claim name'],
  ];
  for (const [label, change, message] of refused) {
    it(`refuses ${label} with a clear error`, () => {
      const make = () => externalJwtBearer({ ...base, ...change } as JwtBearerOptions);
      expect(make).toThrow(JwtBearerOptionsError);
      expect(make).toThrow(message);
    });
  }

  it('refuses HS256 with a public key source, plain http off loopback, and a key that fits no allowed algorithm', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => externalJwtBearer({ publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })).toThrow('with a public key source, only');
    expect(() => externalJwtBearer({ authority: 'http://issuer.example.test', audience: AUDIENCE })).toThrow('`authority` must use https');
    expect(() => externalJwtBearer({ authority: 'http://127.0.0.1:1', audience: AUDIENCE })).not.toThrow();
    expect(() => externalJwtBearer({ publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'] })).toThrow('fits none of the allowed algorithms');
    expect(() => externalJwtBearer({ publicKey: { kty: 'oct', k: 'c2VjcmV0' }, issuer: ISSUER, audience: AUDIENCE })).toThrow('use `secret`');
    expect(() => externalJwtBearer({ publicKey: 'not a key', issuer: ISSUER, audience: AUDIENCE })).toThrow('`publicKey` is not a public key');
  });
});

describe('a shared secret', () => {
  const handler = externalJwtBearer({ secret: SECRET, issuer: ISSUER, audience: [AUDIENCE, 'https://legacy.example.test'], algorithms: ['HS256', 'HS384'] });
  const key = new TextEncoder().encode(SECRET);

  it('accepts HS256 and HS384 tokens of the issuer, for any of the audiences', async () => {
    for (const alg of ['HS256', 'HS384']) expect((await authenticate(handler, await sign(key, alg))).kind).toBe('success');
    expect((await authenticate(handler, await sign(key, 'HS256', { aud: 'https://legacy.example.test' }))).kind).toBe('success');
  });

  it('refuses HS512 (not allowed), another secret, and another issuer', async () => {
    const results = await Promise.all([
      authenticate(handler, await sign(new TextEncoder().encode(SECRET.padEnd(64, '!')), 'HS512')),
      authenticate(handler, await sign(new TextEncoder().encode(`${SECRET}, but another`), 'HS256')),
      authenticate(handler, await sign(key, 'HS256', { iss: 'https://other.example.test' })),
    ]);
    expect(results.map((result) => (result.kind === 'fail' ? result.message : result.kind))).toEqual([
      'The token algorithm is not allowed.',
      'The token signature is invalid.',
      'The token has the wrong issuer.',
    ]);
  });
});

describe('a configured public key', () => {
  it('accepts tokens signed by it (given as PEM or JWK), refuses tokens of another key', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
    const jwk = await exportJWK(publicKey);
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const byJwk = externalJwtBearer({ publicKey: jwk, issuer: ISSUER, audience: AUDIENCE });
    const byOtherPem = externalJwtBearer({ publicKey: pem, issuer: ISSUER, audience: AUDIENCE });
    const token = await sign(privateKey, 'EdDSA');
    expect((await authenticate(byJwk, token)).kind).toBe('success');
    expect(await authenticate(byOtherPem, token)).toMatchObject({ kind: 'fail', message: 'The token signature is invalid.' });
  });
});

describe('a JWKS URL', () => {
  let server: Server;
  let url: string;
  let privateKey: CryptoKey;
  beforeAll(async () => {
    const pair = await generateKeyPair('PS256', { extractable: true });
    privateKey = pair.privateKey;
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'PS256' }] });
    server = createServer((_request, response) => response.end(jwks));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts tokens signed by a key it publishes; ready() fetches it at start', async () => {
    const handler = externalJwtBearer({ jwksUrl: url, issuer: ISSUER, audience: AUDIENCE });
    await handler.ready();
    const result = await authenticate(handler, await sign(privateKey, 'PS256', { name: 'Alice' }, 'k1'));
    expect(result.kind).toBe('success');
    if (result.kind !== 'success') return;
    expect(result.scheme).toBe('Bearer');
    expect(result.principal.identity?.authenticationType).toBe('Bearer');
    expect(result.principal.subject).toBe('alice');
    expect(result.principal.name).toBe('Alice');
  });

  it('answers a repeated token from memory with the same principal', async () => {
    const handler = externalJwtBearer({ jwksUrl: url, issuer: ISSUER, audience: AUDIENCE, scheme: 'Partner' });
    const token = await sign(privateKey, 'PS256', {}, 'k1');
    const first = await authenticate(handler, token);
    const second = await handler.authenticate(bearer(token));
    expect(second).toEqual(first);
    expect(second.kind === 'success' && first.kind === 'success' && second.principal === first.principal).toBe(true);
    expect(first).toMatchObject({ kind: 'success', scheme: 'Partner' });
  });

  it('answers the same challenge as Gatehouse\'s own bearer scheme', async () => {
    const handler = externalJwtBearer({ jwksUrl: url, issuer: ISSUER, audience: AUDIENCE });
    const result = await authenticate(handler, 'a.b.c');
    expect(handler.challenge(result)).toEqual({ wwwAuthenticate: 'Bearer error="invalid_token", error_description="The token is malformed."', detail: TOKEN_REFUSALS.malformed });
    expect(await handler.authenticate({ headers: {} })).toEqual({ kind: 'noResult' });
    expect(await handler.authenticate({ headers: { authorization: 'Basic YTpi' } })).toEqual({ kind: 'noResult' });
  });
});

describe('the principal of a token', () => {
  it('takes roles and name from the configured sources, splits scopes, and keeps the token members out', () => {
    const payload = {
      iss: ISSUER, aud: AUDIENCE, exp: 1, iat: 1, nbf: 1, jti: 'j', sub: 'alice', name: 'ignored',
      preferred_username: 'alice@example.test', role: 'not-a-role-source', scope: 'a b  c', realm_access: { roles: ['admin', 'admin', 'user'] },
    };
    const principal = principalOf(payload, 'Keycloak', { roleClaim: 'realm_access.roles', nameClaim: 'preferred_username' });
    expect(principal).toBeInstanceOf(ClaimsPrincipal);
    expect(principal.identity?.authenticationType).toBe('Keycloak');
    expect(principal.name).toBe('alice@example.test');
    expect(principal.subject).toBe('alice');
    expect(principal.findAll('role').map((claim) => claim.value)).toEqual(['admin', 'user']);
    expect(principal.findAll('scope').map((claim) => claim.value)).toEqual(['a', 'b', 'c']);
    expect(principal.claims.map((claim) => claim.type)).not.toContain('iss');
    expect(principal.claims.map((claim) => claim.type)).not.toContain('realm_access');
    const byFunction = principalOf({ groups: ['x', 'y'] }, 'B', { roleClaim: (p) => (p.groups as string[]).map((g) => `g-${g}`), nameClaim: 'name' });
    expect(byFunction.findAll('role').map((claim) => claim.value)).toEqual(['g-x', 'g-y']);
    expect(byFunction.name).toBeNull();
  });
});

describe('TokenMemory', () => {
  const verified = { valid: true as const, principal: ClaimsPrincipal.anonymous(), expiresAt: 0 };

  it('is bounded: the oldest token leaves first', () => {
    const memory = new TokenMemory(2);
    memory.remember('token-one', verified, 1000);
    memory.remember('token-two', verified, 1000);
    memory.remember('token-three', verified, 1000);
    expect(memory.size).toBe(2);
    expect(memory.recall('token-one', 0)).toBeUndefined();
    expect(memory.recall('token-three', 0)).toBe(verified);
  });

  it('forgets a token at its end, and remembers nothing with capacity 0', () => {
    const memory = new TokenMemory(10);
    memory.remember('token', verified, 1000);
    expect(memory.recall('token', 999)).toBe(verified);
    expect(memory.recall('token', 1000)).toBeUndefined();
    expect(memory.size).toBe(0);
    const none = new TokenMemory(0);
    none.remember('token', verified, 1000);
    expect(none.recall('token', 0)).toBeUndefined();
  });

  it('confirms a hit on the whole token, not only its end', () => {
    const memory = new TokenMemory(10);
    const end = 'x'.repeat(32);
    memory.remember(`first.${end}`, verified, 1000);
    expect(memory.recall(`other.${end}`, 0)).toBeUndefined();
  });
});
