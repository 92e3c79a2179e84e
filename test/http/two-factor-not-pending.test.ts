/**
 * The two-factor routes without a valid two-factor cookie (docs/reference/http.md): `/account/login/2fa`,
 * `/account/login/2fa/send` and `/account/login/recovery` answer 401 problem+json with
 * `succeeded:false`, like every other sign-in failure, and `Cache-Control: no-store`; a browser
 * (a page load or a form post) is sent back to the login page instead.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

describe.runIf(sqlite)('two-factor routes without a pending sign-in', () => {
  const ctx = useTestApp(sqlite!);

  const requests: [string, () => Promise<LightMyRequestResponse>][] = [
    ['GET /account/login/2fa', () => ctx.app.inject({ url: '/account/login/2fa' })],
    ['POST /account/login/2fa', () => ctx.app.inject({ method: 'POST', url: '/account/login/2fa', payload: { code: '123456' } })],
    ['POST /account/login/2fa/send', () => ctx.app.inject({ method: 'POST', url: '/account/login/2fa/send', payload: { provider: 'Email' } })],
    ['POST /account/login/recovery', () => ctx.app.inject({ method: 'POST', url: '/account/login/recovery', payload: { recoveryCode: 'ABCD-EFGH' } })],
    [
      'POST /account/login/2fa with a forged two-factor cookie',
      () => ctx.app.inject({ method: 'POST', url: '/account/login/2fa', headers: { cookie: 'gh.twofactor=forged' }, payload: { code: '123456' } }),
    ],
  ];

  it.each(requests)('answers %s with 401 problem+json and succeeded:false', async (_label, send) => {
    const response = await send();
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(json(response)).toMatchObject({ type: expect.any(String), title: 'Unauthorized', status: 401, code: 'GH_SIGNIN_FAILED', succeeded: false });
    expect(json(response)).not.toHaveProperty('requiresTwoFactor');
  });

  it('sends a browser back to the login page', async () => {
    const page = await ctx.app.inject({ url: '/account/login/2fa', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/account/login');
  });
});
