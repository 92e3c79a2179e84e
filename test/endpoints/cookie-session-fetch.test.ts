/**
 * A cookie caller through the Web-standard handler, as through Fastify's pipeline: an unsafe
 * request the auth cookie authenticates from an origin nobody trusts is 403 on both hosts, the
 * same request from the service's own origin goes through, and a persistent cookie whose session
 * slid is sent again with the answer (both hosts run endpoints/cookie-session-check.ts).
 */
import { describe, expect, it } from 'vitest';
import { defineEndpoint } from '../../src/endpoints/endpoint.ts';
import { fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** Echoes its caller: any signed-in user. */
const whoAmI = (method: 'GET' | 'POST') =>
  defineEndpoint({
    method,
    path: '/who',
    authorization: { authorize: [{ policy: 'User' }] },
    handle: async (request) => ({ status: 200, body: { subject: request.user.subject } }),
  });

describe('a cookie caller through fetchHandler', () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 2, 12));
  const ctx = useTestApp(sqlite!, { clock, env: { COOKIE_HOURS: '1' } });

  const handler = () => {
    const { evaluator, policies, config } = ctx.app.gatehouse;
    return fetchHandler([whoAmI('GET'), whoAmI('POST')], {
      evaluator,
      policies,
      trustedOrigins: [config.publicUrl.origin],
      sessionCookies: { production: false, clock },
    });
  };
  const request = (method: string, headers: Record<string, string>) => new Request('http://gh.test/who', { method, headers });

  it('refuses an unsafe request from another origin with 403, as Fastify does for /account/logout, and serves the own origin', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const handle = handler();
    const foreign = await handle(request('POST', { cookie, origin: 'https://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'GH_FORBIDDEN', policy: ['Cookies'] });
    const onFastify = await ctx.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie, origin: 'https://evil.example' } });
    expect(onFastify.statusCode).toBe(403);

    const own = await handle(request('POST', { cookie, origin: ctx.app.gatehouse.config.publicUrl.origin }));
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ subject: String(user.id) });
  });

  it('sends a persistent cookie again once its session slid, and nothing before', async () => {
    const { cookie } = await signInWithCookie(ctx, { rememberMe: true });
    const handle = handler();
    clock.advance(20 * 60_000);
    const early = await handle(request('GET', { cookie }));
    expect(early.status).toBe(200);
    expect(early.headers.getSetCookie()).toEqual([]);
    clock.advance(20 * 60_000);
    const renewed = await handle(request('GET', { cookie }));
    expect(renewed.status).toBe(200);
    const line = renewed.headers.getSetCookie().find((value) => value.startsWith('gh.auth='));
    expect(line).toBeDefined();
    expect(cookiePair(line!)).toBe(cookie);
    expect(line).toContain(`Expires=${new Date(clock.now() + 3_600_000).toUTCString()}`);
    // The same slide on Fastify re-sends the same cookie.
    clock.advance(40 * 60_000);
    const onFastify = await ctx.app.inject({ url: '/account/profile', headers: { cookie } });
    expect(cookiePair(authSetCookie(onFastify)!)).toBe(cookie);
  });
});
