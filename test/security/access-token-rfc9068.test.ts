/**
 * RFC 9068 — a strict resource server accepts Gatehouse's access tokens. A token from
 * `POST /auth/token` (and one from `/auth/refresh`) is checked the way such a validator does, with
 * jose and the JWKS that `/.well-known/jwks.json` serves: header `typ` `at+jwt`, and the claims
 * `iss`, `exp`, `aud`, `sub`, `client_id`, `iat`, `jti` all present (a validator refuses a token
 * without `client_id`). `client_id` is the first-party client's name; a user cannot set it as a
 * custom claim (it is reserved), so no token can carry a client name of the user's choosing.
 */
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { FIRST_PARTY_CLIENT_ID } from '../../src/tokens/access-token.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const REQUIRED_CLAIMS = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];

describe('access tokens under a strict RFC 9068 validator (SQLite)', () => {
  const ctx = useTestApp(sqlite!);

  async function strictlyVerify(token: string) {
    const jwks = json<JSONWebKeySet>(await ctx.app.inject({ url: '/.well-known/jwks.json' }));
    const { config } = ctx.services;
    return jwtVerify(token, createLocalJWKSet(jwks), {
      typ: 'at+jwt',
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      requiredClaims: REQUIRED_CLAIMS,
    });
  }

  async function signIn() {
    const { user, password } = await ctx.createUser({ userName: 'rfc9068-user' });
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    expect(response.statusCode).toBe(200);
    return { user, ...json<{ accessToken: string; refreshToken: string }>(response) };
  }

  it('accepts a token from /auth/token: at+jwt, with iss, exp, aud, sub, client_id, iat and jti', async () => {
    const { user, accessToken } = await signIn();
    expect(decodeProtectedHeader(accessToken).typ).toBe('at+jwt');
    const { payload } = await strictlyVerify(accessToken);
    expect(payload.sub).toBe(String(user.id));
    expect(payload.client_id).toBe(FIRST_PARTY_CLIENT_ID);
    expect(typeof payload.jti).toBe('string');
  });

  it('accepts a token from /auth/refresh the same way', async () => {
    const { refreshToken } = await signIn();
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
    expect(response.statusCode).toBe(200);
    const { payload } = await strictlyVerify(json<{ accessToken: string }>(response).accessToken);
    expect(payload.client_id).toBe(FIRST_PARTY_CLIENT_ID);
  });

  it('gives the bearer caller no client_id claim: a token describes itself, the principal is the user', async () => {
    const { user, accessToken } = await signIn();
    const me = await ctx.app.inject({ url: '/me', headers: bearer(accessToken) });
    expect(me.statusCode).toBe(200);
    expect(me.body).toBe('rfc9068-user');
    const verified = await ctx.services.accessTokens.verify(accessToken);
    expect(verified.valid && verified.principal.hasClaim('client_id')).toBe(false);
    expect(verified.valid && verified.userId).toBe(user.id);
  });

  it('refuses client_id as a custom claim, at creation and when added later', async () => {
    await expect(ctx.createUser({ claims: [{ type: 'client_id', value: 'admin-console' }] })).rejects.toMatchObject({ code: 'GH_VALIDATION_FAILED' });
    const { user } = await ctx.createUser();
    await expect(Promise.resolve().then(() => ctx.services.users.addClaim(user.id, { type: 'client_id', value: 'admin-console' }))).rejects.toMatchObject({ code: 'GH_VALIDATION_FAILED' });
    const token = (await ctx.services.accessTokens.issue((await ctx.services.users.findById(user.id))!)).token;
    expect((await strictlyVerify(token)).payload.client_id).toBe(FIRST_PARTY_CLIENT_ID);
  });
});
