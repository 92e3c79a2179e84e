import { describe, expect, it } from 'vitest';
import { de } from '../../i18n/de.ts';
import { inEnglish, worded } from '../../i18n/phrase.ts';
import { AuthorizationPolicyBuilder } from '../authorization/authorization-policy-builder.ts';
import { AuthorizationService } from '../authorization/authorization-service.ts';
import { Claim } from '../claims/claim.ts';
import { ClaimsIdentity } from '../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from './authentication-handler.ts';
import type { AuthenticationRequest } from './authentication-request.ts';
import { AuthenticationSchemeProvider, forwardByRequestShape } from './authentication-scheme-provider.ts';
import { PolicyEvaluator } from './policy-evaluator.ts';
import { ApiKeyHandler, type ApiKeyValidator, INVALID_API_KEY, MISSING_API_KEY } from './schemes/api-key/handler.ts';
import { BearerHandler, type BearerTokenValidator } from './schemes/bearer/handler.ts';
import { TOKEN_REFUSALS } from './schemes/bearer/token-refusal.ts';
import { CookieProtector } from './schemes/cookies/cookie-protector.ts';
import { CookiesHandler } from './schemes/cookies/handler.ts';

/** The Cookies scheme over a store that knows no session (its own tests are beside it). */
const noSessionCookies = () =>
  new CookiesHandler({ validator: { validate: async () => ({ valid: false }) }, protector: new CookieProtector('test', 'gh.auth'), cookieName: 'gh.auth' });

const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const EXPIRES_AT = Date.UTC(2026, 0, 1, 0, 15);

function request(headers: Record<string, string | string[] | undefined>, cookies?: Record<string, string>): AuthenticationRequest {
  return cookies === undefined ? { headers } : { headers, cookies };
}

/** A challenge with its detail in English, as a caller without `Accept-Language` reads it. */
function inEnglishChallenge(challenge: Challenge): Challenge {
  return challenge.detail === undefined ? challenge : { ...challenge, detail: inEnglish(challenge.detail) };
}

function userPrincipal(sub: string, role?: string): ClaimsPrincipal {
  const claims = [new Claim('sub', sub), new Claim('name', `user${sub}`)];
  if (role !== undefined) claims.push(new Claim('role', role));
  return new ClaimsPrincipal([new ClaimsIdentity(claims, 'Bearer')]);
}

/** A validator that accepts only the tokens it is given, and records what it was asked. */
class FakeBearerValidator implements BearerTokenValidator {
  readonly calls: string[] = [];

  constructor(private readonly tokens: Readonly<Record<string, ClaimsPrincipal>> = {}, private readonly reason = 'The token expired.') {}

  async validate(token: string) {
    this.calls.push(token);
    const principal = this.tokens[token];
    return principal ? { valid: true as const, principal, expiresAt: EXPIRES_AT } : { valid: false as const, reason: this.reason };
  }
}

class FakeApiKeyValidator implements ApiKeyValidator {
  readonly calls: string[] = [];

  constructor(private readonly keys: Readonly<Record<string, string>> = {}) {}

  async validate(key: string) {
    this.calls.push(key);
    const client = this.keys[key];
    return client === undefined ? { valid: false as const } : { valid: true as const, client };
  }
}

describe('forwardByRequestShape', () => {
  it('forwards a Bearer Authorization header to Bearer, whatever the case of the scheme name', () => {
    expect(forwardByRequestShape(request({ authorization: `Bearer ${TOKEN}` }))).toBe('Bearer');
    expect(forwardByRequestShape(request({ authorization: `bearer ${TOKEN}` }))).toBe('Bearer');
    expect(forwardByRequestShape(request({ authorization: `BEARER ${TOKEN}` }))).toBe('Bearer');
  });

  it('forwards a malformed Bearer header to Bearer too, so that it is refused as invalid', () => {
    expect(forwardByRequestShape(request({ authorization: 'Bearer' }))).toBe('Bearer');
    expect(forwardByRequestShape(request({ authorization: 'Bearer  x' }))).toBe('Bearer');
  });

  it('does not forward another Authorization scheme to Bearer', () => {
    expect(forwardByRequestShape(request({ authorization: 'Basic YWxpY2U6cGFzcw==' }))).toBe('Cookies');
    expect(forwardByRequestShape(request({ authorization: 'Bearerish x' }))).toBe('Cookies');
  });

  it('forwards an X-Api-Key header to ApiKey', () => {
    expect(forwardByRequestShape(request({ 'x-api-key': 'k-123' }))).toBe('ApiKey');
  });

  it('forwards an empty X-Api-Key header to ApiKey, so that it is refused as missing', () => {
    expect(forwardByRequestShape(request({ 'x-api-key': '' }))).toBe('ApiKey');
  });

  it('forwards an X-Api-Key header to ApiKey when the Authorization header is another scheme', () => {
    expect(forwardByRequestShape(request({ authorization: 'Basic abc', 'x-api-key': 'k-123' }))).toBe('ApiKey');
  });

  it('forwards to Cookies when there is neither header', () => {
    expect(forwardByRequestShape(request({}))).toBe('Cookies');
    expect(forwardByRequestShape(request({ cookie: 'gh.auth=abc' }, { 'gh.auth': 'abc' }))).toBe('Cookies');
  });

  it('prefers Bearer when both a Bearer header and an X-Api-Key header are sent', () => {
    expect(forwardByRequestShape(request({ authorization: `Bearer ${TOKEN}`, 'x-api-key': 'k-123' }))).toBe('Bearer');
  });
});

describe('AuthenticationSchemeProvider', () => {
  const bearer = new BearerHandler(new FakeBearerValidator());
  const apiKey = new ApiKeyHandler(new FakeApiKeyValidator());
  const cookies = noSessionCookies();

  it('lists and finds its schemes by name', () => {
    const provider = new AuthenticationSchemeProvider([cookies, bearer, apiKey], forwardByRequestShape);
    expect(provider.schemes).toEqual(['Cookies', 'Bearer', 'ApiKey']);
    expect(provider.get('Bearer')).toBe(bearer);
    expect(provider.get('ApiKey')).toBe(apiKey);
  });

  it('refuses a scheme registered twice', () => {
    expect(() => new AuthenticationSchemeProvider([bearer, new BearerHandler(new FakeBearerValidator())], forwardByRequestShape)).toThrow(
      /"Bearer".*twice/,
    );
  });

  it('throws for an unknown scheme name, naming it', () => {
    const provider = new AuthenticationSchemeProvider([cookies, bearer], forwardByRequestShape);
    expect(() => provider.get('ApiKey')).toThrow(/"ApiKey"/);
  });

  it('gives the default scheme chosen by the selector from the request', () => {
    const provider = new AuthenticationSchemeProvider([cookies, bearer, apiKey], forwardByRequestShape);
    expect(provider.defaultFor(request({ authorization: `Bearer ${TOKEN}` }))).toBe(bearer);
    expect(provider.defaultFor(request({ 'x-api-key': 'k' }))).toBe(apiKey);
    expect(provider.defaultFor(request({}))).toBe(cookies);
  });

  it('throws when the selector names a scheme that is not registered', () => {
    const provider = new AuthenticationSchemeProvider([cookies], forwardByRequestShape);
    expect(() => provider.defaultFor(request({ 'x-api-key': 'k' }))).toThrow(/"ApiKey"/);
  });
});

describe('BearerHandler', () => {
  const alice = userPrincipal('1');

  function setup(reason?: string) {
    const validator = new FakeBearerValidator({ [TOKEN]: alice }, reason);
    return { validator, handler: new BearerHandler(validator) };
  }

  it('finds no credentials (noResult) without an Authorization header', async () => {
    const { validator, handler } = setup();
    expect(await handler.authenticate(request({}))).toEqual({ kind: 'noResult' });
    expect(validator.calls).toEqual([]);
  });

  it('finds no credentials (noResult) in another scheme’s Authorization header', async () => {
    const { validator, handler } = setup();
    expect(await handler.authenticate(request({ authorization: 'Basic x' }))).toEqual({ kind: 'noResult' });
    expect(validator.calls).toEqual([]);
  });

  it.each([
    ['the scheme name alone', 'Bearer'],
    ['the scheme name and a space', 'Bearer '],
    ['two spaces before the token', `Bearer  ${TOKEN}`],
    ['a tab before the token', `Bearer\t${TOKEN}`],
    ['a token that is not a compact JWS', 'Bearer not-a-jwt'],
    ['a token with two parts', 'Bearer abc.def'],
    ['a token with four parts', `Bearer ${TOKEN}.x`],
    ['a token with characters outside base64url', 'Bearer a+b.c/d.e='],
    ['a trailing word', `Bearer ${TOKEN} extra`],
  ])('refuses %s as malformed without asking the validator', async (_, authorization) => {
    const { validator, handler } = setup();
    expect(await handler.authenticate(request({ authorization }))).toEqual({
      kind: 'fail',
      scheme: 'Bearer',
      message: 'The token is malformed.',
      wording: TOKEN_REFUSALS.malformed,
    });
    expect(validator.calls).toEqual([]);
  });

  it('refuses a repeated Authorization header (an array) as malformed without asking the validator', async () => {
    const { validator, handler } = setup();
    const result = await handler.authenticate(request({ authorization: [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`] }));
    expect(result).toEqual({ kind: 'fail', scheme: 'Bearer', message: 'The token is malformed.', wording: TOKEN_REFUSALS.malformed });
    expect(validator.calls).toEqual([]);
  });

  it('accepts a valid token, giving the validator’s principal and expiry', async () => {
    const { validator, handler } = setup();
    const result = await handler.authenticate(request({ authorization: `Bearer ${TOKEN}` }));
    expect(result).toEqual({ kind: 'success', scheme: 'Bearer', principal: alice, expiresAt: EXPIRES_AT });
    expect(validator.calls).toEqual([TOKEN]);
  });

  it('accepts the scheme name in lower case', async () => {
    const { validator, handler } = setup();
    const result = await handler.authenticate(request({ authorization: `bearer ${TOKEN}` }));
    expect(result.kind).toBe('success');
    expect(validator.calls).toEqual([TOKEN]);
  });

  it('passes only the token, without the scheme name, to the validator', async () => {
    const { validator, handler } = setup();
    await handler.authenticate(request({ authorization: 'Bearer a.b.c' }));
    expect(validator.calls).toEqual(['a.b.c']);
  });

  it('fails with the validator’s reason when the token is refused', async () => {
    const { handler } = setup('The token has the wrong audience.');
    const result = await handler.authenticate(request({ authorization: 'Bearer a.b.c' }));
    expect(result).toEqual({ kind: 'fail', scheme: 'Bearer', message: 'The token has the wrong audience.' });
  });

  it('challenges a refused token with invalid_token and the reason (RFC 6750)', async () => {
    const { handler } = setup('The token expired.');
    const req = request({ authorization: 'Bearer a.b.c' });
    const result = await handler.authenticate(req);
    expect(handler.challenge(result)).toEqual({
      wwwAuthenticate: 'Bearer error="invalid_token", error_description="The token expired."',
      detail: 'The token expired.',
    });
  });

  it('challenges a malformed token with invalid_token', async () => {
    const { handler } = setup();
    const req = request({ authorization: 'Bearer' });
    const result = await handler.authenticate(req);
    expect(handler.challenge(result).wwwAuthenticate).toBe('Bearer error="invalid_token", error_description="The token is malformed."');
    expect(worded(handler.challenge(result).detail!, de)).toBe('Das Token ist fehlerhaft.');
  });

  it('challenges a caller without credentials with exactly `Bearer`', async () => {
    const { handler } = setup();
    const req = request({});
    const result = await handler.authenticate(req);
    expect(handler.challenge(result)).toEqual({ wwwAuthenticate: 'Bearer' });
  });
});

describe('ApiKeyHandler', () => {
  function setup() {
    const validator = new FakeApiKeyValidator({ 'good-key': 'billing' });
    return { validator, handler: new ApiKeyHandler(validator) };
  }

  it.each([
    ['no X-Api-Key header', {}],
    ['an empty X-Api-Key header', { 'x-api-key': '' }],
    ['an X-Api-Key header of whitespace', { 'x-api-key': '  \t ' }],
  ])('fails with "Missing API key" for %s, without asking the validator', async (_, headers) => {
    const { validator, handler } = setup();
    expect(await handler.authenticate(request(headers))).toEqual({ kind: 'fail', scheme: 'ApiKey', message: MISSING_API_KEY, wording: expect.any(Function) });
    expect(MISSING_API_KEY).toBe('Missing API key');
    expect(validator.calls).toEqual([]);
  });

  it('fails with "Invalid API key" for a key longer than 256 characters, without asking the validator', async () => {
    const { validator, handler } = setup();
    const result = await handler.authenticate(request({ 'x-api-key': 'k'.repeat(257) }));
    expect(result).toEqual({ kind: 'fail', scheme: 'ApiKey', message: 'Invalid API key', wording: expect.any(Function) });
    expect(validator.calls).toEqual([]);
  });

  it('asks the validator about a key of exactly 256 characters', async () => {
    const { validator, handler } = setup();
    await handler.authenticate(request({ 'x-api-key': 'k'.repeat(256) }));
    expect(validator.calls).toEqual(['k'.repeat(256)]);
  });

  it('fails with "Invalid API key" for a repeated header (an array), without asking the validator', async () => {
    const { validator, handler } = setup();
    const result = await handler.authenticate(request({ 'x-api-key': ['good-key', 'good-key'] }));
    expect(result).toEqual({ kind: 'fail', scheme: 'ApiKey', message: INVALID_API_KEY, wording: expect.any(Function) });
    expect(validator.calls).toEqual([]);
  });

  it('fails with "Invalid API key" for a key the validator refuses', async () => {
    const { validator, handler } = setup();
    const result = await handler.authenticate(request({ 'x-api-key': 'wrong-key' }));
    expect(result).toEqual({ kind: 'fail', scheme: 'ApiKey', message: 'Invalid API key', wording: expect.any(Function) });
    expect(validator.calls).toEqual(['wrong-key']);
  });

  it('gives the validator the header’s exact value', async () => {
    const { validator, handler } = setup();
    await handler.authenticate(request({ 'x-api-key': ' good-key' }));
    expect(validator.calls).toEqual([' good-key']);
  });

  it('authenticates a valid key as an ApiKey principal with claim `client` and no name or subject', async () => {
    const { handler } = setup();
    const result = await handler.authenticate(request({ 'x-api-key': 'good-key' }));
    if (result.kind !== 'success') throw new Error(`expected success, got ${result.kind}`);
    expect(result.scheme).toBe('ApiKey');
    const { principal } = result;
    expect(principal.isAuthenticated).toBe(true);
    expect(principal.identities).toHaveLength(1);
    expect(principal.identity?.authenticationType).toBe('ApiKey');
    expect(principal.claims.map((claim) => [claim.type, claim.value])).toEqual([['client', 'billing']]);
    expect(principal.name).toBeNull();
    expect(principal.subject).toBeNull();
  });

  it('challenges with `ApiKey` and the failure message as detail', async () => {
    const { handler } = setup();
    const missing = request({});
    expect(inEnglishChallenge(handler.challenge(await handler.authenticate(missing)))).toEqual({ wwwAuthenticate: 'ApiKey', detail: 'Missing API key' });
    const invalid = request({ 'x-api-key': 'wrong-key' });
    const challenge = handler.challenge(await handler.authenticate(invalid));
    expect(inEnglishChallenge(challenge)).toEqual({ wwwAuthenticate: 'ApiKey', detail: 'Invalid API key' });
    expect(worded(challenge.detail!, de)).toBe('Der API-Schlüssel ist ungültig.');
  });

  it('challenges with "Missing API key" when it was not consulted', () => {
    const { handler } = setup();
    expect(inEnglishChallenge(handler.challenge(AuthenticateResult.noResult()))).toEqual({ wwwAuthenticate: 'ApiKey', detail: 'Missing API key' });
  });
});

describe('PolicyEvaluator', () => {
  const alice = userPrincipal('1');
  const admin = userPrincipal('2', 'Admin');

  function setup() {
    const bearerValidator = new FakeBearerValidator({ 'alice.token.sig': alice, 'admin.token.sig': admin });
    const apiKeyValidator = new FakeApiKeyValidator({ 'good-key': 'billing' });
    const schemes = new AuthenticationSchemeProvider(
      [noSessionCookies(), new BearerHandler(bearerValidator), new ApiKeyHandler(apiKeyValidator)],
      forwardByRequestShape,
    );
    return { bearerValidator, apiKeyValidator, evaluator: new PolicyEvaluator(schemes, new AuthorizationService()) };
  }

  const authenticated = new AuthorizationPolicyBuilder().requireAuthenticatedUser().build();
  const adminOnly = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Admin').build();
  const apiKeyOnly = new AuthorizationPolicyBuilder('ApiKey').requireAuthenticatedUser().requireClaim('client').build();

  it('uses the default scheme chosen by request shape when the policy names none', async () => {
    const { evaluator, bearerValidator } = setup();
    const req = request({ authorization: 'Bearer alice.token.sig' });
    const authentication = await evaluator.authenticate(authenticated, req);
    expect(authentication.succeeded).toBe(true);
    expect(authentication.principal).toBe(alice);
    expect(authentication.attempts.map(({ handler }) => handler.scheme)).toEqual(['Bearer']);
    expect(bearerValidator.calls).toEqual(['alice.token.sig']);
  });

  it('uses the default scheme when there is no policy at all', async () => {
    const { evaluator } = setup();
    const req = request({ 'x-api-key': 'good-key' });
    const authentication = await evaluator.authenticate(null, req);
    expect(authentication.attempts.map(({ handler }) => handler.scheme)).toEqual(['ApiKey']);
    expect(authentication.principal.hasClaim('client', 'billing')).toBe(true);
  });

  it('gives the anonymous principal when the default scheme finds nothing', async () => {
    const { evaluator } = setup();
    const req = request({});
    const authentication = await evaluator.authenticate(authenticated, req);
    expect(authentication.succeeded).toBe(false);
    expect(authentication.principal.isAuthenticated).toBe(false);
    expect(authentication.attempts.map(({ handler }) => handler.scheme)).toEqual(['Cookies']);
  });

  it('tries only the schemes a policy names: a cookie-only request against an ApiKey policy is challenged', async () => {
    const { evaluator } = setup();
    const req = request({ cookie: 'gh.auth=session' }, { 'gh.auth': 'session' });
    const authentication = await evaluator.authenticate(apiKeyOnly, req);
    expect(authentication.attempts.map(({ handler }) => handler.scheme)).toEqual(['ApiKey']);
    expect(authentication.attempts[0]!.result).toEqual({ kind: 'fail', scheme: 'ApiKey', message: 'Missing API key', wording: expect.any(Function) });
    expect(authentication.succeeded).toBe(false);
    expect(await evaluator.authorize(apiKeyOnly, authentication, req)).toMatchObject({ kind: 'challenge' });
  });

  it('does not read a bearer token for a policy that names only ApiKey', async () => {
    const { evaluator, bearerValidator } = setup();
    const req = request({ authorization: 'Bearer alice.token.sig' });
    const authentication = await evaluator.authenticate(apiKeyOnly, req);
    expect(bearerValidator.calls).toEqual([]);
    expect(authentication.succeeded).toBe(false);
    expect(await evaluator.authorize(apiKeyOnly, authentication, req)).toMatchObject({ kind: 'challenge' });
  });

  it('merges the principals of several schemes a policy names', async () => {
    const { evaluator } = setup();
    const both = new AuthorizationPolicyBuilder('Bearer', 'ApiKey').requireClaim('sub').requireClaim('client').build();
    const req = request({ authorization: 'Bearer alice.token.sig', 'x-api-key': 'good-key' });
    const authentication = await evaluator.authenticate(both, req);
    expect(authentication.succeeded).toBe(true);
    expect(authentication.principal.identities.map((identity) => identity.authenticationType)).toEqual(['Bearer', 'ApiKey']);
    expect(authentication.principal.subject).toBe('1');
    expect(authentication.principal.hasClaim('client', 'billing')).toBe(true);
    expect(await evaluator.authorize(both, authentication, req)).toEqual({ kind: 'success' });
  });

  it('succeeds with one of several named schemes when the other finds bad credentials', async () => {
    const { evaluator } = setup();
    const either = new AuthorizationPolicyBuilder('Bearer', 'ApiKey').requireAuthenticatedUser().build();
    const req = request({ authorization: 'Bearer alice.token.sig', 'x-api-key': 'wrong' });
    const authentication = await evaluator.authenticate(either, req);
    expect(authentication.succeeded).toBe(true);
    expect(authentication.principal.subject).toBe('1');
    expect(authentication.attempts.map(({ result }) => result.kind)).toEqual(['success', 'fail']);
    expect(await evaluator.authorize(either, authentication, req)).toEqual({ kind: 'success' });
  });

  it('succeeds when the caller is authenticated and meets the policy', async () => {
    const { evaluator } = setup();
    const req = request({ authorization: 'Bearer admin.token.sig' });
    const authentication = await evaluator.authenticate(adminOnly, req);
    expect(await evaluator.authorize(adminOnly, authentication, req)).toEqual({ kind: 'success' });
  });

  it('challenges (401) an unauthenticated caller', async () => {
    const { evaluator } = setup();
    const req = request({});
    const authentication = await evaluator.authenticate(adminOnly, req);
    expect(await evaluator.authorize(adminOnly, authentication, req)).toMatchObject({ kind: 'challenge' });
  });

  it('challenges (401) a caller whose credentials were refused', async () => {
    const { evaluator } = setup();
    const req = request({ authorization: 'Bearer forged.token.sig' });
    const authentication = await evaluator.authenticate(authenticated, req);
    expect(authentication.succeeded).toBe(false);
    expect(authentication.attempts[0]!.result).toEqual({ kind: 'fail', scheme: 'Bearer', message: 'The token expired.' });
    expect(await evaluator.authorize(authenticated, authentication, req)).toMatchObject({ kind: 'challenge' });
  });

  it('forbids (403) an authenticated caller who fails the policy, naming the scheme that authenticated them', async () => {
    const { evaluator } = setup();
    const req = request({ authorization: 'Bearer alice.token.sig' });
    const authentication = await evaluator.authenticate(adminOnly, req);
    expect(await evaluator.authorize(adminOnly, authentication, req)).toEqual({ kind: 'forbid', schemes: ['Bearer'] });
  });

  it('forbids an API-key caller who fails a policy naming no schemes, naming ApiKey', async () => {
    const { evaluator } = setup();
    const req = request({ 'x-api-key': 'good-key' });
    const authentication = await evaluator.authenticate(adminOnly, req);
    expect(await evaluator.authorize(adminOnly, authentication, req)).toEqual({ kind: 'forbid', schemes: ['ApiKey'] });
  });

  it('forbids with the policy’s own schemes when it names some', async () => {
    const { evaluator } = setup();
    const policy = new AuthorizationPolicyBuilder('ApiKey', 'Bearer').requireRole('Admin').build();
    const req = request({ 'x-api-key': 'good-key' });
    const authentication = await evaluator.authenticate(policy, req);
    expect(await evaluator.authorize(policy, authentication, req)).toEqual({ kind: 'forbid', schemes: ['ApiKey', 'Bearer'] });
  });

  it('hands the resource to the authorization service', async () => {
    const { evaluator } = setup();
    const policy = new AuthorizationPolicyBuilder()
      .requireAssertion((context) => (context.resource as { ownerId: string } | null)?.ownerId === context.user.subject)
      .build();
    const req = request({ authorization: 'Bearer alice.token.sig' });
    const authentication = await evaluator.authenticate(policy, req);
    expect(await evaluator.authorize(policy, authentication, req, { ownerId: '1' })).toEqual({ kind: 'success' });
    expect(await evaluator.authorize(policy, authentication, req, { ownerId: '2' })).toEqual({ kind: 'forbid', schemes: ['Bearer'] });
  });

  it('runs a custom scheme through the same split', async () => {
    const custom: AuthenticationHandler = {
      scheme: 'Custom',
      authenticate: () => AuthenticateResult.success('Custom', new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '5')], 'Custom')])),
      challenge: () => ({}),
    };
    const schemes = new AuthenticationSchemeProvider([custom], () => 'Custom');
    const evaluator = new PolicyEvaluator(schemes, new AuthorizationService());
    const req = request({});
    const authentication = await evaluator.authenticate(adminOnly, req);
    expect(await evaluator.authorize(adminOnly, authentication, req)).toEqual({ kind: 'forbid', schemes: ['Custom'] });
  });
});
