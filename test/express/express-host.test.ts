/**
 * Gatehouse on Express, driven over HTTP as a client would: an application with its own routes,
 * a router as a group, a route that opens itself, a resource check, and Gatehouse's endpoints
 * mounted before and after the application's body parser.
 */
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssertionRequirement, type AuthorizationPolicy, AuthorizationPolicyBuilder, type PolicyName, ProblemError } from 'gatehouse-auth';
import { type ExpressGatehouse, gatehouse } from 'gatehouse-auth/express';
import { adaAndBob, expectGatehouseEndpoints, expectPremiumPolicy, expectRoleTakenAwayAtOnce, hostClient } from '../helpers/host-client.ts';

/** Met by the caller whose name is the resource's owner. */
const ownerRequirement = new AssertionRequirement((context) => (context.resource as { owner: string }).owner === context.user.name, 'the owner');

interface Served {
  readonly auth: ExpressGatehouse;
  readonly url: string;
  close(): Promise<void>;
}

/** An application as its guide writes it; `parserFirst` puts express.json() before Gatehouse's endpoints. */
async function application(parserFirst: boolean): Promise<Served> {
  const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();
  const auth = await gatehouse(
    { settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' }, policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy> },
    { logger: pino({ level: 'silent' }) },
  );
  const app = express();
  if (parserFirst) app.use(express.json());
  app.use(auth.endpoints);
  if (!parserFirst) app.use(express.json());
  app.use(auth.middleware);
  app.get('/me', (request, response) => {
    response.json({ name: request.user.name });
  });
  app.get('/reports', auth.authorize({ policy: 'PremiumOnly' }), (_request, response) => {
    response.json({ reports: [] });
  });
  app.get('/status', auth.allowAnonymous(), (request, response) => {
    response.json({ authenticated: request.user.isAuthenticated });
  });
  app.get('/documents/:owner', async (request, response) => {
    await request.authorize({ owner: request.params.owner }, [ownerRequirement]);
    response.json({ owner: request.params.owner });
  });
  const admin = express.Router();
  admin.use(auth.authorize({ roles: ['Admin'] }));
  admin.get('/stats', (_request, response) => {
    response.json({ users: 2 });
  });
  admin.get('/ping', auth.allowAnonymous(), (_request, response) => {
    response.json({ pong: true });
  });
  app.use('/console', admin);
  // Reached after the router, which holds no such route: its group is not around this one.
  app.get('/console/about', auth.allowAnonymous(), (_request, response) => {
    response.json({ about: 'console' });
  });
  app.get('/console/news', (request, response) => {
    response.json({ reader: request.user.name });
  });
  app.post('/invoices/7/pay', auth.allowAnonymous(), () => {
    throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: 7 });
  });
  app.get('/boom', auth.allowAnonymous(), () => {
    throw new Error('the application failed');
  });
  app.use(auth.errors);
  // The application's own error handler after Gatehouse's: it gets what Gatehouse does not know.
  app.use(((_error, _request, response, _next) => {
    response.status(500).json({ handledBy: 'the application' });
  }) satisfies ErrorRequestHandler);
  const server = app.listen(0, '127.0.0.1');
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

describe.each([
  ['Gatehouse before the body parser', false],
  ['the body parser before Gatehouse', true],
])('Gatehouse on Express, %s', (_name, parserFirst) => {
  let served: Served;
  let ada: string;
  let bob: string;

  const client = hostClient(() => served.url);
  const { get } = client;

  beforeAll(async () => {
    served = await application(parserFirst);
    ({ ada, bob } = await adaAndBob(served.auth.gatehouse, client));
  });

  afterAll(() => served.close());

  it('signs in at /auth/token and serves a route under the fallback policy to its bearer (200), and a challenge without one (401)', async () => {
    const me = await get('/me', ada);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ name: 'ada' });
    const anonymous = await get('/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
    expect(await get('/me', `${ada.slice(0, -4)}AAAA`).then((response) => response.status)).toBe(401);
  });

  it("answers a route's policy: 200 for a member, 403 problem+json for another caller, 401 for none", async () => {
    await expectPremiumPolicy(client, '/reports', { ada, bob });
  });

  it("protects a router's routes with its group, and lets a route of it open itself", async () => {
    expect((await get('/console/stats', ada)).status).toBe(403);
    expect((await get('/console/stats')).status).toBe(401);
    const ping = await get('/console/ping');
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ pong: true });
  });

  it("does not carry a router's group to a later route of the application under the same path", async () => {
    expect((await get('/console/about')).status).toBe(200);
    const news = await get('/console/news', bob);
    expect(news.status).toBe(200);
    expect(await news.json()).toEqual({ reader: 'bob' });
  });

  it('reads no credentials on an anonymous route: a bad token leaves the caller anonymous', async () => {
    const status = await get('/status', 'not-a-token');
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ authenticated: false });
  });

  it("keeps Express's 404 for a path no route serves, credentials or not", async () => {
    expect((await get('/nowhere')).status).toBe(404);
    expect((await get('/nowhere', ada)).status).toBe(404);
  });

  it('answers a refused resource check with 403 through the error handler, and lets the owner in', async () => {
    expect((await get('/documents/ada', ada)).status).toBe(200);
    const refused = await get('/documents/ada', bob);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it("serves Gatehouse's own endpoints: the JWKS, the profile of a bearer, and a bad sign-in body as 400", async () => {
    await expectGatehouseEndpoints(client, served.url, ada);
  });

  it("answers the application's ProblemError as problem+json, and leaves an unexpected error to the application's handler", async () => {
    const paid = await fetch(`${served.url}/invoices/7/pay`, { method: 'POST' });
    expect(paid.status).toBe(409);
    expect(paid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await paid.json()).toMatchObject({ status: 409, code: 'INVOICE_PAID', invoiceId: 7 });
    const boom = await get('/boom');
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ handledBy: 'the application' });
  });

  it.runIf(!parserFirst)('refuses a body past the limit, streamed undeclared to its own endpoints, with 413 problem+json', async () => {
    let sent = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 4 MiB of whitespace in all, never declared: the limit (1 MiB) must stop the read.
        if (sent >= 4 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${served.url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('refuses a role taken away at once: the next request with the older token is 401', async () => {
    await expectRoleTakenAwayAtOnce(served.auth.gatehouse, client, '/reports');
  });
});

describe('starting and defining routes', () => {
  it('refuses a misspelt option before anything opens', async () => {
    await expect(gatehouse({ settings: { databaseUrl: 'sqlite::memory:' }, features: { cookie: false } as never }, { logger: pino({ level: 'silent' }) })).rejects.toThrow(
      /^features has no option "cookie"; did you mean "cookies"\?/,
    );
  });

  it('refuses every request, and closes the routes registered before its middleware, naming them in the log', async () => {
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    const auth = await gatehouse({ settings: { databaseUrl: 'sqlite::memory:' } }, { logger });
    const app = express();
    app.get('/early', (_request, response) => {
      response.json({ served: 'to anyone' });
    });
    const admin = express.Router();
    admin.get('/secrets', (_request, response) => {
      response.json({ secrets: true });
    });
    app.use('/admin', admin);
    app.use(auth.middleware);
    app.get('/late', auth.allowAnonymous(), (_request, response) => {
      response.json({ late: true });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${url}/late`)).status).toBe(500);
      expect((await fetch(`${url}/early`)).status).toBe(500);
      expect((await fetch(`${url}/admin/secrets`)).status).toBe(500);
      expect(logged.join('\n')).toMatch(/These routes come before Gatehouse's middleware and would be served to anyone: GET \/early; GET \/secrets\./);
    } finally {
      await new Promise((resolve) => server.close(resolve));
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
