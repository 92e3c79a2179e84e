/**
 * Crafting access tokens for the security tests: tokens signed with the service's REAL current
 * key (or any other key) that are valid except for the one property a test changes, plus the raw
 * pieces (base64url segments, HMAC and ECDSA signatures) to build tokens no library would emit.
 *
 *   const token = await forge(ctx, user, { claims: { exp: undefined } });   // no `exp`
 *   const token = await forge(ctx, user, { header: { typ: 'JWT' } });        // wrong `typ`
 *
 * A member set to `undefined` is left out (JSON.stringify drops it). Every suite that uses this
 * first proves that `forge(ctx, user)` with no overrides is ACCEPTED on `/me`, so a 401 in a
 * negative test is due to the one property under test.
 */
import { createHmac } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/test-app.ts';
import type { User } from '../../src/store/ports.ts';

export type Members = Record<string, unknown>;

/** base64url without padding, of a string or bytes. */
export function b64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64url');
}

/** One JWS segment: base64url of the JSON text of `value`. */
export function segment(value: unknown): string {
  return b64url(JSON.stringify(value));
}

/** The decoded JSON of one segment of a compact token. */
export function decodeSegment(token: string, index: 0 | 1): Members {
  return JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8')) as Members;
}

/** The claims the service itself puts in an access token for `user`, at the service's clock. */
export function baselineClaims(ctx: TestApp, user: User, nowSeconds = Math.floor(ctx.services.clock.now() / 1000)): Members {
  const { jwtIssuer, jwtAudience } = ctx.services.config;
  return {
    iss: jwtIssuer,
    aud: jwtAudience,
    sub: String(user.id),
    name: user.userName ?? user.email,
    email: user.email,
    role: [...user.roles],
    gh_ver: user.claimsStamp,
    iat: nowSeconds,
    nbf: nowSeconds,
    exp: nowSeconds + 600,
    jti: `forged-${Math.random().toString(36).slice(2)}`,
  };
}

/** The header the service puts on its access tokens, for the current key. */
export function baselineHeader(ctx: TestApp): Members {
  const key = ctx.services.keyRing.current;
  return { alg: 'ES256', kid: key.kid, typ: 'at+jwt' };
}

/** An ES256 signature (IEEE P1363 r‖s, what JWS uses) of `signingInput` with any P-256 private key. */
export async function es256(privateKey: CryptoKey, signingInput: string): Promise<string> {
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, new TextEncoder().encode(signingInput));
  return b64url(new Uint8Array(signature));
}

/** An HS256 signature of `signingInput` with `secret` as the HMAC key. */
export function hs256(secret: string | Uint8Array, signingInput: string): string {
  return createHmac('sha256', secret).update(signingInput).digest('base64url');
}

/** A compact JWS of `header` and `payload` (objects, or raw JSON text), ES256-signed with `privateKey`. */
export async function signCompact(privateKey: CryptoKey, header: Members | string, payload: Members | string): Promise<string> {
  const encode = (part: Members | string) => (typeof part === 'string' ? b64url(part) : segment(part));
  const signingInput = `${encode(header)}.${encode(payload)}`;
  return `${signingInput}.${await es256(privateKey, signingInput)}`;
}

export interface ForgeOptions {
  /** Merged over the baseline header; `undefined` removes a member. */
  readonly header?: Members;
  /** Merged over the baseline claims; `undefined` removes a claim. */
  readonly claims?: Members;
  /** Signs with this key instead of the ring's current private key. */
  readonly privateKey?: CryptoKey;
}

/** A token signed with the ring's current key, valid except for the overrides. */
export async function forge(ctx: TestApp, user: User, options: ForgeOptions = {}): Promise<string> {
  const header = { ...baselineHeader(ctx), ...options.header };
  const claims = { ...baselineClaims(ctx, user), ...options.claims };
  const privateKey = options.privateKey ?? (await ctx.services.keyRing.current.signKey());
  return signCompact(privateKey, header, claims);
}

/** A fresh P-256 key pair that the service has never seen (the attacker's). */
export async function attackerKeyPair(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
}

/** The response's `WWW-Authenticate` header as one string. */
export function challengeOf(response: { headers: Record<string, unknown> }): string {
  const value = response.headers['www-authenticate'];
  return Array.isArray(value) ? value.join(', ') : String(value ?? '');
}

/**
 * The answer to a presented but bad bearer token (RFC 6750 section 3.1): 401 problem+json with
 * `WWW-Authenticate: Bearer error="invalid_token", …`, and no principal's data in the body.
 */
export function expectInvalidToken(response: LightMyRequestResponse, label?: string): void {
  expect(response.statusCode, label).toBe(401);
  expect(challengeOf(response), label).toMatch(/^Bearer error="invalid_token"/);
  expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(response.body), label).toMatchObject({ status: 401, title: 'Unauthorized' });
}
