/**
 * SEC-18, SEC-19, SEC-21 — key confusion, signature tampering and key material named by the
 * token. Pins that:
 *   - an HS256 token whose HMAC secret is the service's PUBLIC key, in every form an attacker can
 *     get from the JWKS (SPKI PEM, PEM with a leading newline or spaces, DER bytes, the JWK JSON,
 *     the whole JWKS document), is refused: the ES256 key is bound to ES256 and the algorithm is
 *     never taken from the header;
 *   - a key of another type (RSA, Ed25519) under our kid is refused;
 *   - a tampered payload under the original signature, a zero-length signature, the "psychic"
 *     ECDSA signature r = s = 0 (CVE-2022-21449), and a token signed by a foreign P-256 key that
 *     claims our kid are refused;
 *   - an embedded `jwk`, or a `jku` / `x5u` URL, never supplies the verification key, and the
 *     service makes no request to such a URL (no SSRF).
 * Each answer is 401 with `Bearer error="invalid_token"`.
 */
import { constants, createHmac, createPublicKey, generateKeyPairSync, type KeyObject, sign as nodeSign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, type JWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';
import {
  attackerKeyPair,
  b64url,
  baselineClaims,
  baselineHeader,
  decodeSegment,
  expectInvalidToken,
  forge,
  hs256,
  segment,
  signCompact,
} from './jwt-forge.ts';

const engines = await testEngines();

/** The published key as a Node KeyObject, to export it as PEM or DER like an attacker would. */
function publicKeyOf(jwk: JWK): KeyObject {
  return createPublicKey({ key: { ...jwk }, format: 'jwk' });
}

describe.each(engines)('JWT key confusion and tampering on $engine (SEC-18, SEC-19, SEC-21)', (engine) => {
  const ctx = useTestApp(engine);

  /** A listener standing in for https://evil.example: counts every request made to it. */
  let evil: { server: Server; url: string; hits: string[]; jwks: string } | undefined;
  beforeEach(async () => {
    const state = { hits: [] as string[], jwks: '{"keys":[]}' };
    const server = createServer((request, response) => {
      state.hits.push(`${request.method} ${request.url}`);
      response.setHeader('content-type', 'application/json');
      response.end(state.jwks);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    evil = Object.assign(state, { server, url: `http://127.0.0.1:${port}` });
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => evil?.server.close(() => resolve()));
    evil = undefined;
  });

  async function me(token: string) {
    return ctx.app.inject({ url: '/me', headers: bearer(token) });
  }

  it('accepts the unmodified forged token (baseline)', async () => {
    const { user } = await ctx.createUser({ userName: 'confusion-user' });
    const response = await me(await forge(ctx, user));
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('confusion-user');
  });

  describe('HS256 with the public key as the HMAC secret (SEC-18)', () => {
    it('refuses every form of the published key as secret, with and without our kid', async () => {
      const { user } = await ctx.createUser();
      const jwk = ctx.services.keyRing.current.publicJwk;
      const publicKey = publicKeyOf(jwk);
      const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
      const der = publicKey.export({ type: 'spki', format: 'der' });
      const jwksResponse = await ctx.app.inject({ url: '/.well-known/jwks.json' });
      const secrets: [string, string | Uint8Array][] = [
        ['SPKI PEM', pem],
        ['PEM without its final newline', pem.trimEnd()],
        ['PEM with a leading newline', `\n${pem}`],
        ['PEM with leading spaces', `   ${pem}`],
        ['DER bytes', der],
        ['JWK JSON string', JSON.stringify(jwk)],
        ['JWKS document as served', jwksResponse.body],
        ['x coordinate', String(jwk.x)],
      ];
      for (const [label, secret] of secrets) {
        for (const header of [
          { ...baselineHeader(ctx), alg: 'HS256' },
          { alg: 'HS256', typ: 'at+jwt' },
          { alg: 'HS256', typ: 'JWT' },
        ]) {
          const signingInput = `${segment(header)}.${segment(baselineClaims(ctx, user))}`;
          const token = `${signingInput}.${hs256(secret, signingInput)}`;
          expectInvalidToken(await me(token), `${label} / ${JSON.stringify(header)}`);
        }
      }
    });

    it('refuses HS384/HS512 and a key of another type (RSA, Ed25519) presented under our kid', async () => {
      const { user } = await ctx.createUser();
      const pem = publicKeyOf(ctx.services.keyRing.current.publicJwk).export({ type: 'spki', format: 'pem' });
      for (const [alg, digest] of [['HS384', 'sha384'], ['HS512', 'sha512']] as const) {
        const signingInput = `${segment({ ...baselineHeader(ctx), alg })}.${segment(baselineClaims(ctx, user))}`;
        const token = `${signingInput}.${createHmac(digest, pem).update(signingInput).digest('base64url')}`;
        expectInvalidToken(await me(token), alg);
      }
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const ed = generateKeyPairSync('ed25519');
      const cases: [string, (input: Buffer) => Buffer][] = [
        ['RS256', (input) => nodeSign('sha256', input, rsa.privateKey)],
        ['PS256', (input) => nodeSign('sha256', input, { key: rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 })],
        ['EdDSA', (input) => nodeSign(null, input, ed.privateKey)],
      ];
      for (const [alg, signer] of cases) {
        const signingInput = `${segment({ ...baselineHeader(ctx), alg })}.${segment(baselineClaims(ctx, user))}`;
        const token = `${signingInput}.${b64url(signer(Buffer.from(signingInput)))}`;
        expectInvalidToken(await me(token), alg);
      }
    });
  });

  describe('signature tampering (SEC-19)', () => {
    it('refuses a payload changed after signing (role Admin added, sub changed) under the original signature', async () => {
      const victim = await ctx.createUser();
      const { user } = await ctx.createUser();
      const genuine = await ctx.tokenFor(user);
      expect((await me(genuine)).statusCode).toBe(200);
      const [header, , signature] = genuine.split('.');
      const claims = decodeSegment(genuine, 1);
      for (const changed of [
        { ...claims, role: ['Admin'] },
        { ...claims, sub: String(victim.user.id) },
        { ...claims, exp: (claims.exp as number) + 3600 },
      ]) {
        const response = await me(`${header}.${segment(changed)}.${signature}`);
        expectInvalidToken(response);
        expect(response.body).not.toContain(victim.user.email);
      }
    });

    it('refuses a genuine token with one character of its payload or signature flipped', async () => {
      const { user } = await ctx.createUser();
      const genuine = await ctx.tokenFor(user);
      const [header, payload, signature] = genuine.split('.') as [string, string, string];
      const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
      expectInvalidToken(await me(`${header}.${flip(payload, 10)}.${signature}`), 'payload');
      expectInvalidToken(await me(`${header}.${payload}.${flip(signature, 5)}`), 'signature');
    });

    it('refuses a zero-length signature and the r = s = 0 ECDSA signature', async () => {
      const { user } = await ctx.createUser();
      const genuine = await forge(ctx, user);
      const [header, payload] = genuine.split('.');
      expectInvalidToken(await me(`${header}.${payload}.`), 'empty signature');
      expectInvalidToken(await me(`${header}.${payload}.${b64url(new Uint8Array(64))}`), 'r = s = 0 (64 zero bytes)');
      expectInvalidToken(await me(`${header}.${payload}.${b64url(new Uint8Array(1))}`), 'one zero byte');
      // r = s = 1: another degenerate signature.
      const ones = new Uint8Array(64);
      ones[31] = 1;
      ones[63] = 1;
      expectInvalidToken(await me(`${header}.${payload}.${b64url(ones)}`), 'r = s = 1');
    });

    it('refuses a token signed by a foreign P-256 key that names our kid', async () => {
      const { user } = await ctx.createUser();
      const attacker = await attackerKeyPair();
      const response = await me(await forge(ctx, user, { privateKey: attacker.privateKey }));
      expectInvalidToken(response);
      expect(response.headers['www-authenticate']).toContain('signature');
    });
  });

  describe('key material named by the token (SEC-21)', () => {
    it('never trusts an embedded jwk header, with or without our kid', async () => {
      const { user } = await ctx.createUser();
      const attacker = await attackerKeyPair();
      const jwk = { ...(await exportJWK(attacker.publicKey)), alg: 'ES256', use: 'sig' };
      for (const header of [
        { ...baselineHeader(ctx), jwk },
        { alg: 'ES256', typ: 'at+jwt', jwk },
        { alg: 'ES256', typ: 'at+jwt', kid: 'attacker', jwk: { ...jwk, kid: 'attacker' } },
      ]) {
        const token = await signCompact(attacker.privateKey, header, baselineClaims(ctx, user));
        expectInvalidToken(await me(token), JSON.stringify(header));
      }
    });

    it('refuses jku and x5u headers and fetches nothing from them (no SSRF)', async () => {
      const { user } = await ctx.createUser();
      const attacker = await attackerKeyPair();
      const jwk = { ...(await exportJWK(attacker.publicKey)), alg: 'ES256', use: 'sig', kid: 'attacker' };
      const server = evil!;
      server.jwks = JSON.stringify({ keys: [jwk] });
      const jku = `${server.url}/jwks.json`;
      const x5u = `${server.url}/cert.pem`;
      for (const header of [
        { alg: 'ES256', typ: 'at+jwt', kid: 'attacker', jku },
        { ...baselineHeader(ctx), jku },
        { alg: 'ES256', typ: 'at+jwt', kid: 'attacker', x5u },
        { ...baselineHeader(ctx), x5u },
        { alg: 'ES256', typ: 'at+jwt', kid: 'attacker', x5c: [b64url(publicKeyOf(jwk).export({ type: 'spki', format: 'der' }))] },
      ]) {
        const token = await signCompact(attacker.privateKey, header, baselineClaims(ctx, user));
        expectInvalidToken(await me(token), JSON.stringify(header));
      }
      // Give a lazy fetch a moment to happen before counting.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.hits).toEqual([]);
    });
  });
});
