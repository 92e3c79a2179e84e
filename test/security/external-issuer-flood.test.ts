/**
 * An external issuer is not flooded through the bearer scheme (docs/guide.md, external issuers):
 * whatever the issuer answers — errors, nothing at all, a key set without the token's `kid` —
 * tokens with made-up `kid`s sent over HTTP, 50 at once and more after, cost one fetch of its
 * JWKS at a time, with a backoff after a failure, never one per token. Every such token is
 * refused with 401 (never 500); after the backoff a fetch is tried again, and once the issuer
 * answers again a token of its real key is accepted. The issuer is a real HTTP server of our own
 * on loopback that counts its requests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { externalJwtBearer, type JwtBearerOptions } from 'gatehouse-auth';
import { waitUntil } from '../helpers/processes.ts';
import { API_AUDIENCE, type AppUnderTest, type LocalIssuer, startAppWith, startLocalIssuer } from '../helpers/external-issuer.ts';

let issuer: LocalIssuer;
let app: AppUnderTest | undefined;
let base: string;
/** What the scheme told the application of the issuer's failures. */
let reported: Error[];

beforeEach(async () => {
  issuer = await startLocalIssuer();
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await issuer.close();
});

async function gatehouse(options: Partial<JwtBearerOptions> = {}): Promise<void> {
  reported = [];
  const onError = (error: Error) => void reported.push(error);
  app = await startAppWith({ schemes: [externalJwtBearer({ authority: issuer.url, audience: API_AUDIENCE, onError, ...options })] });
  base = await app.app.listen({ host: '127.0.0.1', port: 0 });
}

async function me(token: string): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

/** Tokens of the issuer's own key under `count` made-up `kid`s, signed before any is sent. */
function madeUpKids(count: number, tag: string): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => issuer.sign({ header: { kid: `${tag}-${index}` } })));
}

/** 50 at once, then 20 one after another: the burst and the trickle an attacker would send. */
async function flood(tokens: readonly string[]): Promise<Array<{ status: number; challenge: string | null }>> {
  const burst = await Promise.all(tokens.slice(0, 50).map((token) => me(token)));
  const trickle = [];
  for (const token of tokens.slice(50)) trickle.push(await me(token));
  return [...burst, ...trickle];
}

const jwksFetches = () => issuer.hitsOf('/jwks');

describe('tokens with made-up kids while the issuer fails', () => {
  it('cost one JWKS fetch while it answers 500, another after the backoff, and a real key works once it recovers', async () => {
    await gatehouse();
    issuer.jwksStatus = 500;
    const answers = await flood(await madeUpKids(70, 'made-up'));
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain("The issuer's signing keys are unavailable.");
    }
    expect(jwksFetches()).toBeGreaterThanOrEqual(1);
    expect(jwksFetches()).toBeLessThanOrEqual(2);
    // The application's log hears of each failed fetch once, not of each refused token.
    expect(reported.length).toBe(jwksFetches());

    // After the backoff, one more fetch is tried (and fails again).
    const before = jwksFetches();
    const [late] = await madeUpKids(1, 'late');
    await waitUntil(async () => (await me(late!)).status === 401 && jwksFetches() > before, { timeoutMs: 10_000, intervalMs: 100, what: 'a fetch after the backoff' });

    issuer.jwksStatus = undefined;
    const good = await issuer.sign();
    await waitUntil(async () => (await me(good)).status === 200, { timeoutMs: 20_000, intervalMs: 200, what: 'the real key to be accepted once the issuer answers' });
  });

  it('cost one JWKS fetch while it never answers (each fetch times out)', async () => {
    await gatehouse({ timeoutSeconds: 0.5 });
    issuer.jwksHangs = true;
    const answers = await flood(await madeUpKids(70, 'held'));
    for (const answer of answers) expect(answer.status).toBe(401);
    expect(jwksFetches()).toBeLessThanOrEqual(2);

    issuer.jwksHangs = false;
    const good = await issuer.sign();
    await waitUntil(async () => (await me(good)).status === 200, { timeoutMs: 20_000, intervalMs: 200, what: 'the real key to be accepted once the issuer answers' });
  });
});

describe('tokens with made-up kids while the key set lacks them', () => {
  it('cost one JWKS fetch, before the keys were ever fetched and after, and the real key still works', async () => {
    await gatehouse();
    const cold = await flood(await madeUpKids(70, 'cold'));
    for (const answer of cold) {
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain('The token signing key is unknown.');
    }
    expect(jwksFetches()).toBe(1);
    expect((await me(await issuer.sign())).status).toBe(200);

    const warm = await flood(await madeUpKids(70, 'warm'));
    for (const answer of warm) expect(answer.status).toBe(401);
    expect(jwksFetches()).toBe(1);
  });
});
