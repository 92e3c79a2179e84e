/**
 * SEC-123 (docs/reference/security-events.md: "never a password, code or token" in the log) — secrets never reach
 * the log. Drives a successful and a failed sign-in through `/auth/token`, bearer and API-key
 * calls (good and bad), a locked-out style burst of failures, requests that carry secrets in the
 * query string, an invalid bearer token, a body error and a server-side error, then pins that
 * none of the password, the wrong password, the access token (nor its signature), the API key
 * (nor its secret part), the bad credentials, or the query secrets appears in any captured log
 * line, while the log does hold a request line for those requests (so capture demonstrably
 * worked and the test could fail).
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

interface LogLine {
  readonly msg?: string;
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly [key: string]: unknown;
}

describe.each(engines)('no secrets in logs on $engine (SEC-123)', (engine) => {
  const ctx = useTestApp(engine);

  it('logs request lines but no password, token, API key or query secret', async () => {
    const { user, password } = await ctx.createUser({ userName: 'logged-user' });
    const wrongPassword = 'Wr0ng-Passw0rd-Canary-7f3a';
    const querySecret = 'QuerySecretCanary9d2e';
    const codeSecret = 'ResetCodeCanary4b1c';

    // A successful sign-in: the password goes in, a token comes out.
    const signIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    expect(signIn.statusCode).toBe(200);
    const accessToken = json(signIn).accessToken as string;
    // Failed sign-ins: a wrong password, an unknown user, the password under a user name.
    for (const payload of [
      { email: user.email, password: wrongPassword },
      { email: 'nobody@example.com', password: wrongPassword },
      { userName: 'logged-user', password: `${password}x` },
    ]) {
      expect((await ctx.app.inject({ method: 'POST', url: '/auth/token', payload })).statusCode).toBe(401);
    }
    // A sign-in whose body is refused (400), with the password in it.
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password, extra: true } })).statusCode).toBe(400);

    // Bearer calls: good, tampered, and garbage.
    expect((await ctx.app.inject({ url: '/me', headers: bearer(accessToken) })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/content/premium', headers: bearer(accessToken) })).statusCode).toBe(403);
    const tampered = `${accessToken.slice(0, -4)}AAAA`;
    expect((await ctx.app.inject({ url: '/me', headers: bearer(tampered) })).statusCode).toBe(401);
    const garbageToken = 'GarbageTokenCanary.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    expect((await ctx.app.inject({ url: '/me', headers: bearer(garbageToken) })).statusCode).toBe(401);

    // API-key calls: good, wrong secret, revoked.
    const apiKey = await ctx.apiKey('logged-client');
    const apiKeySecret = apiKey.slice('ghk_'.length + 16 + 1);
    expect(apiKeySecret).toHaveLength(43);
    expect((await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': apiKey } })).statusCode).toBe(200);
    const wrongKey = `${apiKey.slice(0, -5)}ZZZZZ`;
    expect((await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': wrongKey } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/documents', headers: { 'x-api-key': apiKey }, payload: { title: 'a', body: 'b' } })).statusCode).toBe(403);

    // Secrets in the query string, on protected and anonymous routes, and on a 404.
    expect((await ctx.app.inject({ url: `/me?access_token=${accessToken}&secret=${querySecret}` })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: `/integrations/whoami?api_key=${apiKey}` })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: `/health?code=${codeSecret}&password=${encodeURIComponent(password)}` })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: `/account/reset-password?code=${codeSecret}` })).statusCode).toBeGreaterThanOrEqual(200);
    // A body error with a secret in the body, on an authenticated route.
    expect((await ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...bearer(accessToken), 'content-type': 'application/json' }, payload: `{"title":"${querySecret}",` })).statusCode).toBe(400);

    await ctx.app.gatehouse.apiKeys.revoke('logged-client');
    expect((await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': apiKey } })).statusCode).toBe(401);

    const log = ctx.logs.join('');
    const lines = ctx.logs.flatMap((chunk) => chunk.split('\n')).filter(Boolean).map((line) => JSON.parse(line) as LogLine);

    // The capture worked: request lines exist for the calls above, with their paths and statuses.
    const requests = lines.filter((line) => line.msg === 'request completed');
    expect(requests.length).toBeGreaterThanOrEqual(15);
    expect(requests).toContainEqual(expect.objectContaining({ method: 'POST', path: '/auth/token', status: 200 }));
    expect(requests).toContainEqual(expect.objectContaining({ method: 'POST', path: '/auth/token', status: 401 }));
    expect(requests).toContainEqual(expect.objectContaining({ method: 'GET', path: '/me', status: 200 }));
    expect(requests).toContainEqual(expect.objectContaining({ method: 'GET', path: '/integrations/whoami', status: 401 }));
    expect(requests).toContainEqual(expect.objectContaining({ method: 'GET', path: '/health', status: 200 }));
    // The e-mail of the failed sign-in may appear only as the security event says; the events exist.
    expect(log).toContain('signin.failed');

    const [, , signature] = accessToken.split('.') as [string, string, string];
    const secrets: [string, string][] = [
      ['password', password],
      ['password, URL-encoded', encodeURIComponent(password)],
      ['wrong password', wrongPassword],
      ['access token', accessToken],
      ['access token signature', signature],
      ['tampered token', tampered],
      ['garbage token', garbageToken],
      ['API key', apiKey],
      ['API key secret part', apiKeySecret],
      ['wrong API key', wrongKey],
      ['query secret', querySecret],
      ['code in the query', codeSecret],
    ];
    for (const [label, secret] of secrets) {
      expect(log.includes(secret), `${label} appears in the log`).toBe(false);
    }
    // No line carries a raw header bag or a query string.
    for (const line of lines) {
      expect(typeof line.path === 'string' ? line.path.includes('?') : false, 'a logged path has a query string').toBe(false);
    }
    expect(log).not.toMatch(/"authorization":"(?!\[redacted\])/i);
    expect(log).not.toMatch(/"x-api-key":"(?!\[redacted\])/i);
  });

  it('would catch a secret if one were logged (the check is not vacuous)', async () => {
    // Write a canary through the service's own logger and find it with the same check.
    const canary = `canary-${Math.random().toString(36).slice(2)}`;
    ctx.services.logger.info({ note: canary }, 'canary line');
    expect(ctx.logs.join('').includes(canary)).toBe(true);
  });
});
