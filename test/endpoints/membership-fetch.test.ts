/**
 * Gatehouse's whole membership through one Web-standard handler (`membershipFetchHandler`), built
 * from the same list of endpoints the Fastify app registers (endpoints/membership-endpoints.ts):
 * every endpoint, asked anonymously and without a body, answers the status Fastify answers; and
 * one user's journey runs on fetch alone: the login page and its form, the profile, tokens,
 * refresh, the admin API and sign-out, with each credential accepted by the other host.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type Endpoint } from '../../src/endpoints/endpoint.ts';
import type { FetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { type MembershipEndpointOptions, membershipEndpoints, membershipFetchHandler, mountedEndpoints } from '../../src/endpoints/membership-endpoints.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const BASE = 'http://gh.test';
const FORM = 'application/x-www-form-urlencoded';

const ctx = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { RATE_LIMIT_IP_PER_MINUTE: '0', RATE_LIMIT_ACCOUNT_PER_MINUTE: '0' } });
afterAll(async () => {
  await ctx.close();
  await sqlite!.dropAll();
});

const { users, audit, sessions, organizations, evaluator, policies } = ctx.app.gatehouse;
const options: MembershipEndpointOptions = {
  services: ctx.services,
  membership: { users, auditTrail: audit, sessions, organizations },
  features: { tokens: true, cookies: true, admin: true, sessions: true, twoFactor: true, externalLogins: true, organizations: true },
  passkeys: true,
  passkeyScript: null,
  paths: MembershipPaths.ROOT,
  pages: ctx.app.pages,
};
const handle: FetchHandler = membershipFetchHandler({ ...options, evaluator, policies });

/** A path of the endpoint with a made-up value for each parameter. */
function concrete(endpoint: Endpoint): string {
  return endpoint.path.replace(/:[A-Za-z]+/g, 'x');
}

function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
}

describe('every membership endpoint through membershipFetchHandler', () => {
  const endpoints = mountedEndpoints(membershipEndpoints(options), '');

  it('lists every route the Fastify app serves for the membership', () => {
    for (const endpoint of endpoints) expect(ctx.app.hasRoute({ method: endpoint.method, url: endpoint.path }), `${endpoint.method} ${endpoint.path}`).toBe(true);
    expect(endpoints.length).toBeGreaterThan(40);
  });

  it('answers an anonymous request without a body as Fastify does', async () => {
    const differences: string[] = [];
    for (const endpoint of endpoints) {
      const url = concrete(endpoint);
      const fetched = await handle(new Request(`${BASE}${url}`, { method: endpoint.method, headers: { 'content-type': 'application/json' } }), { ip: '198.51.100.7' });
      const injected = await ctx.app.inject({ method: endpoint.method, url, headers: { 'content-type': 'application/json' }, remoteAddress: '198.51.100.7' });
      if (fetched.status !== injected.statusCode) differences.push(`${endpoint.method} ${url}: fetch ${fetched.status}, Fastify ${injected.statusCode}`);
      expect(fetched.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(differences).toEqual([]);
  });
});

describe("one user's journey on fetch alone", () => {
  it('signs in with the login form, reads the profile, takes and refreshes tokens, and signs out', async () => {
    const { user, password } = await ctx.createUser();

    // The login page sets the antiforgery cookie its form carries.
    const page = await handle(new Request(`${BASE}/account/login`, { headers: { accept: 'text/html' } }));
    expect(page.status).toBe(200);
    const html = await page.text();
    const field = /name="__RequestVerificationToken" value="([^"]+)"/.exec(html)![1]!;
    const antiforgery = cookiesOf(page);

    const form = new URLSearchParams({ email: user.email, password, __RequestVerificationToken: field });
    const signedIn = await handle(new Request(`${BASE}/account/login`, { method: 'POST', headers: { 'content-type': FORM, cookie: antiforgery, origin: ctx.app.gatehouse.config.publicUrl.origin }, body: form }));
    expect(signedIn.status).toBe(303);
    const session = cookiesOf(signedIn);
    expect(session).toContain('gh.auth=');

    const profile = await handle(new Request(`${BASE}/account/profile`, { headers: { cookie: session } }));
    expect(profile.status).toBe(200);
    expect(profile.headers.get('cache-control')).toBe('no-store');
    expect(await profile.json()).toMatchObject({ id: user.id, email: user.email });
    // The session fetch opened is the one Fastify reads.
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: session } })).statusCode).toBe(200);

    const tokens = await handle(new Request(`${BASE}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, password }) }), { ip: '198.51.100.8' });
    expect(tokens.status).toBe(200);
    const { accessToken, refreshToken } = (await tokens.json()) as { accessToken: string; refreshToken: string };
    expect((await ctx.app.inject({ url: '/me', headers: { authorization: `Bearer ${accessToken}` } })).statusCode).toBe(200);
    // An ordinary user is refused the admin API by its group.
    const admin = await handle(new Request(`${BASE}/admin/users`, { headers: { authorization: `Bearer ${accessToken}` } }));
    expect(admin.status).toBe(403);
    const refreshed = await handle(new Request(`${BASE}/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken }) }));
    expect(refreshed.status).toBe(200);
    const reused = await handle(new Request(`${BASE}/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken }) }));
    expect(reused.status).toBe(401);
    // The replay ended the family: its access token is refused at once.
    expect((await handle(new Request(`${BASE}/admin/users`, { headers: { authorization: `Bearer ${accessToken}` } }))).status).toBe(401);


    const out = await handle(new Request(`${BASE}/account/logout`, { method: 'POST', headers: { cookie: session, origin: ctx.app.gatehouse.config.publicUrl.origin } }));
    expect(out.status).toBe(204);
    expect((await handle(new Request(`${BASE}/account/profile`, { headers: { cookie: session } }))).status).toBe(401);
  });

  it('answers an admin with the users, and a browser refused under the membership with the error page', async () => {
    const { user } = await ctx.createUser({ roles: ['Admin'] });
    const token = await ctx.tokenFor(user);
    const listed = await handle(new Request(`${BASE}/admin/users`, { headers: { authorization: `Bearer ${token}` } }));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { id: number }[]).some((listedUser) => listedUser.id === user.id)).toBe(true);

    const { user: plain } = await ctx.createUser();
    const refused = await handle(new Request(`${BASE}/admin/users`, { headers: { authorization: `Bearer ${await ctx.tokenFor(plain)}`, accept: 'text/html', 'sec-fetch-mode': 'navigate' } }));
    const injected = await ctx.app.inject({ url: '/admin/users', headers: { authorization: `Bearer ${await ctx.tokenFor(plain)}`, accept: 'text/html', 'sec-fetch-mode': 'navigate' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe(injected.headers['content-type']);
    expect(await refused.text()).toBe(injected.body);
  });
});
