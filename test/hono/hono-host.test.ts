/**
 * Gatehouse on Hono, driven over HTTP as a client would: an application with its own routes, a
 * group of routes on a path, a route that opens itself, a resource check, a checked body, and
 * Gatehouse's endpoints before them, on `@hono/node-server` through `auth.createServer(app)`.
 */
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { Hono } from 'hono';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssertionRequirement, type AuthorizationPolicy, AuthorizationPolicyBuilder, type PolicyName, ProblemError } from 'gatehouse-auth';
import { type GatehouseEnv, gatehouse, type HonoGatehouse } from 'gatehouse-auth/hono';
import { adaAndBob, expectGatehouseEndpoints, expectPremiumPolicy, expectRoleTakenAwayAtOnce, hostClient } from '../helpers/host-client.ts';

/** Met by the caller whose name is the resource's owner. */
const ownerRequirement = new AssertionRequirement((context) => (context.resource as { owner: string }).owner === context.user.name, 'the owner');
const NoteInput = Type.Object({ text: Type.String({ minLength: 1, maxLength: 20 }) }, { additionalProperties: false });

interface Served {
  readonly auth: HonoGatehouse;
  readonly url: string;
  close(): Promise<void>;
}

/** An application as its guide writes it. */
async function application(): Promise<Served> {
  const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();
  const auth = await gatehouse(
    { settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' }, policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy> },
    { logger: pino({ level: 'silent' }) },
  );
  const app = new Hono<GatehouseEnv>();
  app.use(auth.endpoints);
  app.use(auth.middleware);
  app.get('/me', (c) => c.json({ name: c.var.user.name }));
  app.get('/reports', auth.authorize({ policy: 'PremiumOnly' }), (c) => c.json({ reports: [] }));
  app.get('/status', auth.allowAnonymous(), (c) => c.json({ authenticated: c.var.user.isAuthenticated }));
  app.get('/avatar', (c) => c.body('png', 200, { 'content-type': 'image/png', 'cache-control': 'private, max-age=60' }));
  app.get('/documents/:owner', async (c) => {
    await c.var.authorize({ owner: c.req.param('owner') }, [ownerRequirement]);
    return c.json({ owner: c.req.param('owner') });
  });
  app.post('/notes', auth.validate({ json: NoteInput }), (c) => c.json({ text: c.req.valid('json').text, by: c.var.user.name }, 201));
  const admin = new Hono<GatehouseEnv>();
  admin.use(auth.authorize({ roles: ['Admin'] }));
  admin.get('/stats', (c) => c.json({ users: 2 }));
  admin.get('/ping', auth.allowAnonymous(), (c) => c.json({ pong: true }));
  app.route('/console', admin);
  app.get('/consoles', (c) => c.json({ reader: c.var.user.name }));
  app.post('/invoices/7/pay', auth.allowAnonymous(), () => {
    throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: 7 });
  });
  app.get('/boom', auth.allowAnonymous(), () => {
    throw new Error('the application failed');
  });
  app.notFound(auth.notFound);
  app.onError(auth.onError);
  const server = auth.createServer(app);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    auth,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

describe('Gatehouse on Hono', () => {
  let served: Served;
  let ada: string;
  let bob: string;

  const client = hostClient(() => served.url);
  const { get } = client;

  beforeAll(async () => {
    served = await application();
    ({ ada, bob } = await adaAndBob(served.auth.gatehouse, client));
  });

  afterAll(() => served.close());

  it('serves a route under the fallback policy to its bearer (200), and a challenge without one (401)', async () => {
    const me = await get('/me', ada);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ name: 'ada' });
    expect(me.headers.get('x-content-type-options')).toBe('nosniff');
    expect(me.headers.get('cache-control')).toBe('no-store');
    const anonymous = await get('/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await get('/me', `${ada.slice(0, -4)}AAAA`)).status).toBe(401);
  });

  it('puts the security headers on every answer after the middleware, refusals included, and leaves a header the route sets to the route', async () => {
    const avatar = await get('/avatar', ada);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get('x-content-type-options')).toBe('nosniff');
    expect(avatar.headers.get('cache-control')).toBe('private, max-age=60');
    const open = await get('/status');
    expect(open.headers.get('x-content-type-options')).toBe('nosniff');
    expect(open.headers.get('cache-control')).toBeNull();
    const refused = await get('/reports', bob);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const missing = await get('/nowhere', ada);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("answers a route's policy: 200 for a member, 403 problem+json for another caller, 401 for none", async () => {
    await expectPremiumPolicy(client, '/reports', { ada, bob });
  });

  it("protects a sub-application's routes with its group, and lets a route of it open itself", async () => {
    expect((await get('/console/stats', ada)).status).toBe(403);
    expect((await get('/console/stats')).status).toBe(401);
    const ping = await get('/console/ping');
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ pong: true });
  });

  it("does not carry a group to a route outside its path that shares its prefix's letters", async () => {
    const consoles = await get('/consoles', bob);
    expect(consoles.status).toBe(200);
    expect(await consoles.json()).toEqual({ reader: 'bob' });
  });

  it('reads no credentials on an anonymous route: a bad token leaves the caller anonymous', async () => {
    const status = await get('/status', 'not-a-token');
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ authenticated: false });
  });

  it('answers 404 problem+json for a path no route serves, credentials or not', async () => {
    for (const token of [undefined, ada]) {
      const nowhere = await get('/nowhere', token);
      expect(nowhere.status).toBe(404);
      expect(nowhere.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('answers a refused resource check with 403 through onError, and lets the owner in', async () => {
    expect((await get('/documents/ada', ada)).status).toBe(200);
    const refused = await get('/documents/ada', bob);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('reads a body only after the decision: 401 without credentials whatever the body, then 415, 400 by field, 201', async () => {
    const post = (body: string, type: string, token?: string) =>
      fetch(`${served.url}/notes`, { method: 'POST', headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });
    expect((await post('{not json', 'application/json')).status).toBe(401);
    expect((await post('text', 'text/plain', ada)).status).toBe(415);
    const invalid = await post(JSON.stringify({ text: '', extra: 1 }), 'application/json', ada);
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { errors: Record<string, unknown> }).errors).toHaveProperty('text');
    expect((await post('{"text": "x"', 'application/json', ada)).status).toBe(400);
    const created = await post(JSON.stringify({ text: 'hello' }), 'application/json', ada);
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ text: 'hello', by: 'ada' });
  });

  it("serves Gatehouse's own endpoints: the JWKS, the profile of a bearer, and a bad sign-in body as 400", async () => {
    await expectGatehouseEndpoints(client, served.url, ada);
  });

  it("answers the application's ProblemError as problem+json, and an unexpected error as a 500 that tells nothing", async () => {
    const paid = await fetch(`${served.url}/invoices/7/pay`, { method: 'POST' });
    expect(paid.status).toBe(409);
    expect(paid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await paid.json()).toMatchObject({ status: 409, code: 'INVOICE_PAID', invoiceId: 7 });
    const boom = await get('/boom');
    expect(boom.status).toBe(500);
    const body = await boom.text();
    expect(JSON.parse(body)).toMatchObject({ status: 500, code: 'GH_INTERNAL' });
    expect(body).not.toMatch(/the application failed/);
  });

  it('refuses a role taken away at once: the next request with the older token is 401', async () => {
    await expectRoleTakenAwayAtOnce(served.auth.gatehouse, client, '/reports');
  });
});

describe('starting and defining routes', () => {
  it('refuses to create the server while routes come before the middleware, naming them', async () => {
    const auth = await gatehouse({ settings: { databaseUrl: 'sqlite::memory:' } }, { logger: pino({ level: 'silent' }) });
    try {
      const app = new Hono<GatehouseEnv>();
      app.use(auth.endpoints);
      app.get('/early', (c) => c.json({ served: 'to anyone' }));
      const admin = new Hono<GatehouseEnv>();
      admin.get('/secrets', (c) => c.json({ secrets: true }));
      app.route('/admin', admin);
      app.use(auth.middleware);
      app.get('/late', auth.allowAnonymous(), (c) => c.json({ late: true }));
      expect(() => auth.createServer(app)).toThrow("These routes come before Gatehouse's middleware and would be served to anyone: GET /early; GET /admin/secrets.");
    } finally {
      await auth.close();
    }
  });

  it('fails where the route is defined for an unknown policy name', async () => {
    const auth = await gatehouse({ settings: { databaseUrl: 'sqlite::memory:' } }, { logger: pino({ level: 'silent' }) });
    try {
      expect(() => auth.authorize({ policy: 'Nobody' as PolicyName })).toThrow(/No authorization policy is named "Nobody"/);
    } finally {
      await auth.close();
    }
  });
});
