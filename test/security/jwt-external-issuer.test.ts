/**
 * The bearer scheme over an external issuer's tokens resists what Gatehouse's own bearer scheme
 * resists (jwt-alg-none, jwt-key-confusion, jwt-claims), against a real issuer of our own on
 * loopback (discovery document + JWKS, keys from jose): key rotation is followed (an unknown
 * `kid` fetches the JWKS again, but not within the cooldown), a key the issuer never published,
 * `alg: none`, HS256 signed with the published key, the wrong `iss` or `aud`, `exp` past, `nbf`
 * and `iat` in the future beyond the skew, and a missing `exp` are refused with 401 `Bearer
 * error="invalid_token"`; a discovery document naming another issuer is refused with a clear
 * error; a dead JWKS fails closed (401, never 500) and recovers when it returns.
 */
import { createHmac, createPublicKey } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { externalJwtBearer, IssuerMetadataError, type JwtBearerOptions, ManualClock } from 'gatehouse-auth';
import { waitUntil } from '../helpers/processes.ts';
import { API_AUDIENCE, type AppUnderTest, type LocalIssuer, startAppWith, startLocalIssuer } from '../helpers/external-issuer.ts';

let issuer: LocalIssuer;
const apps: AppUnderTest[] = [];

beforeEach(async () => {
  issuer = await startLocalIssuer();
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await issuer.close();
});

/** A Gatehouse instance whose `Bearer` scheme trusts `issuer` through its discovery document. */
async function gatehouse(options: Partial<JwtBearerOptions> = {}): Promise<AppUnderTest> {
  const app = await startAppWith({ schemes: [externalJwtBearer({ authority: issuer.url, audience: API_AUDIENCE, ...options })] });
  apps.push(app);
  return app;
}

function me(app: AppUnderTest, token: string): Promise<LightMyRequestResponse> {
  return app.app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } });
}

/** 401 with the bearer challenge, and nothing of the token in the answer. */
function expectInvalidToken(response: LightMyRequestResponse, token: string, reason?: string): void {
  expect(response.statusCode).toBe(401);
  expect(response.headers['content-type']).toContain('application/problem+json');
  const challenge = String(response.headers['www-authenticate']);
  expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
  if (reason !== undefined) expect(challenge).toContain(reason);
  for (const part of token.split('.').filter((segment) => segment.length > 8)) {
    expect(response.body).not.toContain(part);
    expect(challenge).not.toContain(part);
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('a token of the external issuer', () => {
  it('is accepted through discovery: /me answers its name claim, the identity is the scheme\'s', async () => {
    const app = await gatehouse();
    const response = await me(app, await issuer.sign({ claims: { name: 'Ada Lovelace' } }));
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('Ada Lovelace');
    expect(issuer.hitsOf('/.well-known/openid-configuration')).toBe(1);
    expect(issuer.hitsOf('/jwks')).toBe(1);
  });

  it('without a name claim is still a caller: /me answers an empty name', async () => {
    const app = await gatehouse();
    const response = await me(app, await issuer.sign());
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it('is verified once and then remembered, but not past its expiry', async () => {
    const clock = new ManualClock(Date.now());
    const app = await gatehouse({ clock });
    const now = Math.floor(clock.now() / 1000);
    const token = await issuer.sign({ claims: { iat: now, nbf: now, exp: now + 60 } });
    expect((await me(app, token)).statusCode).toBe(200);
    expect((await me(app, token)).statusCode).toBe(200);
    clock.advance(60_000 + 31_000);
    expectInvalidToken(await me(app, token), token, 'The token expired.');
  });
});

describe('key rotation and unknown keys', () => {
  it('fetches the JWKS again for a new kid once the cooldown has passed, and accepts the rotated key', async () => {
    const app = await gatehouse({ jwksCooldownSeconds: 2 });
    const rotated = await issuer.newKey('RS256');
    const token = await issuer.sign({ key: rotated });
    const before = await issuer.sign();
    expect((await me(app, before)).statusCode).toBe(200);
    issuer.published = [rotated];
    // Within the cooldown an unknown kid fetches nothing: it is refused as unknown.
    expectInvalidToken(await me(app, token), token, 'The token signing key is unknown.');
    expect(issuer.hitsOf('/jwks')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const response = await me(app, token);
    expect(response.statusCode).toBe(200);
    expect(issuer.hitsOf('/jwks')).toBe(2);
  });

  it('refuses a token signed by a key the issuer never published, under a new kid or under the published kid', async () => {
    const app = await gatehouse({ jwksCooldownSeconds: 0 });
    const attacker = await issuer.newKey('ES256');
    const unknownKid = await issuer.sign({ key: attacker });
    expectInvalidToken(await me(app, unknownKid), unknownKid, 'The token signing key is unknown.');
    const stolenKid = await issuer.sign({ key: attacker, header: { kid: issuer.key.kid } });
    expectInvalidToken(await me(app, stolenKid), stolenKid, 'The token signature is invalid.');
  });

  it('does not let made-up kids make it flood the issuer: one JWKS fetch per cooldown', async () => {
    const app = await gatehouse();
    expect((await me(app, await issuer.sign())).statusCode).toBe(200);
    for (let index = 0; index < 20; index++) {
      const token = await issuer.sign({ header: { kid: `made-up-${index}` } });
      expectInvalidToken(await me(app, token), token);
    }
    expect(issuer.hitsOf('/jwks')).toBe(1);
  });

  it('never takes the key from the token: an embedded jwk or a jku is ignored', async () => {
    const app = await gatehouse({ jwksCooldownSeconds: 0 });
    const attacker = await issuer.newKey('ES256');
    for (const header of [{ jwk: attacker.publicJwk }, { jku: `${issuer.url}/evil-jwks` }, { x5u: `${issuer.url}/evil-cert` }]) {
      const token = await issuer.sign({ key: attacker, header });
      expectInvalidToken(await me(app, token), token);
    }
    expect(issuer.hits.filter((hit) => hit.includes('evil'))).toEqual([]);
  });
});

describe('algorithms', () => {
  it('refuses alg none (any spelling) without fetching a key', async () => {
    const app = await gatehouse();
    const now = Math.floor(Date.now() / 1000);
    const claims = b64({ iss: issuer.url, aud: API_AUDIENCE, sub: 'user-42', iat: now, exp: now + 600 });
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${b64({ alg, typ: 'at+jwt' })}.${claims}.`;
      expectInvalidToken(await me(app, token), token);
    }
    expect(issuer.hitsOf('/jwks')).toBe(0);
  });

  it('refuses HS256 signed with the published public key, in every form (key confusion)', async () => {
    const app = await gatehouse();
    const publicKey = createPublicKey({ key: { ...issuer.key.publicJwk } as never, format: 'jwk' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const secrets: (string | Buffer)[] = [pem, pem.trimEnd(), publicKey.export({ type: 'spki', format: 'der' }), JSON.stringify(issuer.key.publicJwk)];
    const now = Math.floor(Date.now() / 1000);
    const claims = b64({ iss: issuer.url, aud: API_AUDIENCE, sub: 'user-42', iat: now, exp: now + 600 });
    for (const secret of secrets) {
      for (const alg of ['HS256', 'HS384', 'HS512'] as const) {
        const input = `${b64({ alg, kid: issuer.key.kid, typ: 'at+jwt' })}.${claims}`;
        const token = `${input}.${createHmac(`sha${alg.slice(2)}`, secret).update(input).digest('base64url')}`;
        expectInvalidToken(await me(app, token), token, 'The token algorithm is not allowed.');
      }
    }
  });

  it('refuses an algorithm the application left out of its allow-list', async () => {
    const app = await gatehouse({ algorithms: ['RS256'] });
    const token = await issuer.sign();
    expectInvalidToken(await me(app, token), token, 'The token algorithm is not allowed.');
  });
});

describe('claims', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Record<string, unknown>, string][] = [
    ['the wrong iss', () => ({ iss: 'https://issuer.example.test' }), 'The token has the wrong issuer.'],
    ['no iss', () => ({ iss: undefined }), 'The token'],
    ['the wrong aud', () => ({ aud: 'https://other-api.example.test' }), 'The token has the wrong audience.'],
    ['exp past the skew', () => ({ exp: now() - 31 }), 'The token expired.'],
    ['no exp', () => ({ exp: undefined }), 'The token lacks a required claim.'],
    ['nbf in the future beyond the skew', () => ({ nbf: now() + 120 }), 'The token is not valid yet.'],
    ['iat in the future beyond the skew', () => ({ iat: now() + 120 }), 'The token is not valid yet.'],
  ];
  for (const [label, claims, reason] of cases) {
    it(`refuses a token with ${label}`, async () => {
      const app = await gatehouse();
      const token = await issuer.sign({ claims: claims() as never });
      expectInvalidToken(await me(app, token), token, reason);
    });
  }

  it('allows exp, nbf and iat within the skew', async () => {
    const app = await gatehouse({ clockSkewSeconds: 30 });
    const token = await issuer.sign({ claims: { iat: now() + 20, nbf: now() + 20, exp: now() - 20 } });
    expect((await me(app, token)).statusCode).toBe(200);
  });

  it('requires the configured typ, and runs the application\'s validate hook', async () => {
    const app = await gatehouse({ tokenType: 'at+jwt', validate: (payload) => payload.tenant === 'acme' });
    const idToken = await issuer.sign({ header: { typ: 'JWT' }, claims: { tenant: 'acme' } });
    expectInvalidToken(await me(app, idToken), idToken, 'The token is not an access token.');
    const otherTenant = await issuer.sign({ claims: { tenant: 'globex' } });
    expectInvalidToken(await me(app, otherTenant), otherTenant, 'The token was refused.');
    expect((await me(app, await issuer.sign({ claims: { tenant: 'acme' } }))).statusCode).toBe(200);
  });

  it('refuses an oversized token unread', async () => {
    const app = await gatehouse();
    const token = await issuer.sign({ claims: { padding: 'x'.repeat(9000) } });
    expectInvalidToken(await me(app, token), token, 'The token is malformed.');
  });
});

describe('the issuer\'s metadata and keys', () => {
  it('refuses a discovery document that names another issuer: ready() says so, requests get 401', async () => {
    issuer.discoveryIssuer = 'https://impostor.example.test';
    const errors: Error[] = [];
    const scheme = externalJwtBearer({ authority: issuer.url, audience: API_AUDIENCE, onError: (error) => errors.push(error) });
    const failure = await scheme.ready().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(IssuerMetadataError);
    expect((failure as Error).message).toBe(
      `${issuer.url}/.well-known/openid-configuration names the issuer "https://impostor.example.test", not the authority "${issuer.url}/".`,
    );
    const app = await startAppWith({ schemes: [scheme] });
    apps.push(app);
    const token = await issuer.sign();
    expectInvalidToken(await me(app, token), token, "The issuer's signing keys are unavailable.");
    expect(errors[0]).toBeInstanceOf(IssuerMetadataError);
    expect(issuer.hitsOf('/jwks')).toBe(0);
  });

  it('fails closed while the JWKS is down (401, not 500) and recovers when it returns', async () => {
    const app = await gatehouse();
    issuer.jwksDown = true;
    const token = await issuer.sign();
    const down = await me(app, token);
    expectInvalidToken(down, token, "The issuer's signing keys are unavailable.");
    issuer.jwksDown = false;
    // The next fetch waits for the backoff after the failed one (1 s), then the token is accepted.
    await waitUntil(async () => (await me(app, token)).statusCode === 200, { timeoutMs: 10_000, intervalMs: 100, what: 'the JWKS to be fetched again' });
    expect(issuer.hitsOf('/jwks')).toBe(2);
  });

  it('fails closed while the discovery document is down, and reads it again after the retry delay', async () => {
    const app = await gatehouse({ metadataRetrySeconds: 0.2 });
    issuer.discoveryDown = true;
    const token = await issuer.sign();
    expectInvalidToken(await me(app, token), token, "The issuer's signing keys are unavailable.");
    issuer.discoveryDown = false;
    // Within the retry delay the failure stands, without asking the issuer again.
    expectInvalidToken(await me(app, token), token);
    expect(issuer.hitsOf('/.well-known/openid-configuration')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await me(app, token)).statusCode).toBe(200);
  });

  it('keeps a document it read when a later read fails', async () => {
    const app = await gatehouse({ metadataRefreshSeconds: 1 });
    expect((await me(app, await issuer.sign())).statusCode).toBe(200);
    issuer.discoveryDown = true;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await me(app, await issuer.sign())).statusCode).toBe(200);
    expect(issuer.hitsOf('/.well-known/openid-configuration')).toBe(2);
  });
});
