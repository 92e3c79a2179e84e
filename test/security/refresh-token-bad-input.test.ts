/**
 * SEC-38 (bad bodies) and SEC-39 (substitution) on `POST /auth/refresh` (docs/reference/http.md).
 * Pins that:
 *   - `{}`, `{"refreshToken":null}`, `123`, `["<R>"]`, `{"$ne":null}`, `{"$gt":""}`, 10 KB
 *     strings, a non-JSON body → 400 or 401 with a generic body, never 500, never a match (the
 *     real token is left unused and still rotates afterwards);
 *   - the query form `?refreshToken=<R>` is not read (401) and `Content-Type: text/plain` is 415;
 *   - `RefreshToken` (capital R, the .NET spelling) is accepted;
 *   - an access token sent as `refreshToken` → 401;
 *   - an Authorization header is ignored by /auth/refresh: an expired or garbage bearer token
 *     beside a valid refresh token still gets 200.
 * On each store engine.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { type Pair, signIn } from '../helpers/refresh-tokens.ts';

const engines = await testEngines();

function postRaw(ctx: TestApp, payload: string, contentType = 'application/json', url = '/auth/refresh') {
  return ctx.app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });
}

/** Refused with a generic answer: an allowed status, no token issued or echoed, no stack, no cookie. */
function expectRefused(response: LightMyRequestResponse, label: string, allowed: number[] = [400, 401], secret?: string): void {
  expect(allowed, `${label}: status ${response.statusCode}`).toContain(response.statusCode);
  expect(response.body, label).not.toContain('accessToken');
  if (secret !== undefined) expect(response.body, label).not.toContain(secret);
  expect(response.body, label).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(response.headers['set-cookie'], label).toBeUndefined();
}

describe.each(engines)('bad refresh bodies on $engine (SEC-38)', (engine) => {
  const ctx = useTestApp(engine);

  it('answers malformed and hostile bodies with 400 or 401, never 500 and never a match, and leaves the real token unused', async () => {
    const { pair } = await signIn(ctx);
    const r = pair.refreshToken;
    const payloads: [string, string][] = [
      ['{}', 'empty object'],
      ['{"refreshToken":null}', 'null token'],
      ['{"RefreshToken":null}', 'null .NET token'],
      ['123', 'a number'],
      [JSON.stringify([r]), 'the token in an array'],
      [JSON.stringify({ refreshToken: [r] }), 'the token field as an array'],
      [JSON.stringify({ refreshToken: { $eq: r } }), 'an operator object'],
      ['{"$ne":null}', '$ne'],
      ['{"$gt":""}', '$gt'],
      ['{"refreshToken":{"$ne":null}}', 'field $ne'],
      ['{"refreshToken":{"$gt":""}}', 'field $gt'],
      ['{"refreshToken":true}', 'a boolean'],
      ['{"refreshToken":""}', 'an empty string'],
      [JSON.stringify('x'.repeat(10_240)), 'a 10 KB JSON string'],
      [JSON.stringify({ refreshToken: 'x'.repeat(10_240) }), 'a 10 KB token'],
      [JSON.stringify({ refreshToken: r + 'x'.repeat(10_240) }), 'the real token plus 10 KB'],
      [JSON.stringify({ refreshToken: ` ${r} ` }), 'the real token with spaces'],
      [JSON.stringify({ refreshToken: r.slice(0, -1) }), 'the real token shortened'],
      [JSON.stringify({ refreshToken: `${r}\u0000` }), 'the real token with a NUL'],
      [`refreshToken=${r}`, 'a form-encoded body sent as JSON'],
      ['{"refreshToken": ', 'truncated JSON'],
      ['not json at all', 'plain words'],
      [`{"refreshToken":"${r}"}{"refreshToken":"${r}"}`, 'two JSON documents'],
    ];
    for (const [payload, label] of payloads) {
      expectRefused(await postRaw(ctx, payload), label, [400, 401], r);
    }
    // Duplicate keys: whichever wins, the result is a refusal or a single rotation, not a 500.
    const duplicate = await postRaw(ctx, `{"refreshToken":"${'C'.repeat(43)}","refreshToken":"${'D'.repeat(43)}"}`);
    expectRefused(duplicate, 'duplicate keys');

    // Nothing above matched the real token: it rotates now, exactly once.
    const ok = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: r } });
    expect(ok.statusCode).toBe(200);
  });

  it('answers an empty JSON object with a bare 401 (no token anywhere)', async () => {
    const response = await postRaw(ctx, '{}');
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('');
  });

  it('refuses a NoSQL-style operator body with 400 naming the field, never with a token', async () => {
    await signIn(ctx);
    for (const payload of ['{"$ne":null}', '{"$gt":""}']) {
      const response = await postRaw(ctx, payload);
      expect(response.statusCode, payload).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('does not read the token from the query string (401) and leaves it unused', async () => {
    const { pair } = await signIn(ctx);
    const query = await ctx.app.inject({ method: 'POST', url: `/auth/refresh?refreshToken=${encodeURIComponent(pair.refreshToken)}` });
    expect(query.statusCode).toBe(401);
    expect(query.body).toBe('');
    const both = await postRaw(ctx, '{}', 'application/json', `/auth/refresh?refreshToken=${encodeURIComponent(pair.refreshToken)}`);
    expect(both.statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } })).statusCode).toBe(200);
  });

  it('refuses other media types with 415 and leaves the token unused', async () => {
    const { pair } = await signIn(ctx);
    const body = JSON.stringify({ refreshToken: pair.refreshToken });
    for (const contentType of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16']) {
      const payload = contentType.startsWith('application/x-www-form-urlencoded') ? `refreshToken=${pair.refreshToken}` : body;
      const response = await postRaw(ctx, payload, contentType);
      expectRefused(response, contentType, [415], pair.refreshToken);
    }
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } })).statusCode).toBe(200);
  });

  it('accepts RefreshToken, the .NET spelling', async () => {
    const { pair } = await signIn(ctx);
    const response = await postRaw(ctx, JSON.stringify({ RefreshToken: pair.refreshToken }));
    expect(response.statusCode).toBe(200);
    expect(json<Pair>(response).refreshToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  });

  it('refuses extra fields beside the token with 400 and leaves the token unused', async () => {
    const { pair } = await signIn(ctx);
    for (const extra of [{ scope: 'admin' }, { role: 'Admin' }, { grant_type: 'refresh_token' }]) {
      const response = await postRaw(ctx, JSON.stringify({ refreshToken: pair.refreshToken, ...extra }));
      expect(response.statusCode, JSON.stringify(extra)).toBe(400);
    }
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } })).statusCode).toBe(200);
  });
});

describe.each(engines)('token substitution on $engine (SEC-39)', (engine) => {
  const clock = new ManualClock();
  const ctx = useTestApp(engine, { clock });

  it('refuses an access token sent as refreshToken with 401', async () => {
    const { pair } = await signIn(ctx);
    for (const field of ['refreshToken', 'RefreshToken']) {
      const response = await postRaw(ctx, JSON.stringify({ [field]: pair.accessToken }));
      expect(response.statusCode, field).toBe(401);
      expect(response.body).toBe('');
    }
  });

  it('refuses an access token sent as the gh.refresh cookie', async () => {
    const { pair } = await signIn(ctx);
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: {}, cookies: { 'gh.refresh': pair.accessToken } });
    expect(response.statusCode).toBe(401);
  });

  it('ignores an Authorization header: a garbage, an expired or a valid bearer token beside a valid refresh token still gets 200', async () => {
    const { pair } = await signIn(ctx);
    const expired = pair.accessToken;
    clock.advance(2 * 3600 * 1000);
    // The access token is expired now, by the service's own judgement.
    expect((await ctx.app.inject({ url: '/me', headers: bearer(expired) })).statusCode).toBe(401);

    let current = pair.refreshToken;
    for (const authorization of [`Bearer ${expired}`, 'Bearer garbage.token.here', 'Bearer', 'Basic Zm9vOmJhcg==', `Bearer ${'A'.repeat(9000)}`]) {
      const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', headers: { authorization }, payload: { refreshToken: current } });
      expect(response.statusCode, authorization.slice(0, 30)).toBe(200);
      current = json<Pair>(response).refreshToken;
    }
    const fresh = json<Pair>(await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: current } }));
    const withValid = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', headers: bearer(fresh.accessToken), payload: { refreshToken: fresh.refreshToken } });
    expect(withValid.statusCode).toBe(200);
  });

  it('does not let a valid access token stand in for a missing refresh token', async () => {
    const { pair } = await signIn(ctx);
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', headers: bearer(pair.accessToken), payload: {} });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('');
  });
});
