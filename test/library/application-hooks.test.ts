/**
 * The application's own hooks around Gatehouse's pipeline (docs/guide.md, "Your own hooks"): a
 * hook registered after `register(gatehouse)` runs after authentication and authorization and
 * reads `request.user` set, on protected and anonymous routes alike; one registered before runs
 * first, and may refuse a request before any credential is read. As an adopting team writes it:
 * the public entry points, its own Fastify instance, an in-memory SQLite store.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticateResult, type AuthenticationHandler, type ClaimsPrincipal } from 'gatehouse-auth';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { createStore, type Store } from 'gatehouse-auth/store';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';
import { bearer } from '../helpers/test-app.ts';

const apps: FastifyInstance[] = [];
const stores: Store[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const store of stores.splice(0)) await store.close();
});

/** A scheme of the application's that counts how often it is asked to read credentials. */
function countingScheme(): AuthenticationHandler & { calls: number } {
  const scheme = {
    scheme: 'Counting',
    calls: 0,
    authenticate() {
      scheme.calls++;
      return AuthenticateResult.noResult();
    },
    challenge: () => ({ wwwAuthenticate: 'Counting' }),
  };
  return scheme;
}

/** What a hook saw of the caller: null before authentication, else whether it is authenticated and its `sub`. */
function seen(user: ClaimsPrincipal | null): string {
  if (user === null) return 'no user yet';
  return user.isAuthenticated ? `user ${user.subject}` : 'anonymous';
}

async function application(build: (app: FastifyInstance, scheme: ReturnType<typeof countingScheme>) => Promise<void>) {
  const store = await createStore('sqlite::memory:');
  stores.push(store);
  const app = Fastify(serverOptions(configFromSettings({})));
  apps.push(app);
  const scheme = countingScheme();
  await build(app, scheme);
  await app.ready();
  const user = await app.gatehouse.users.create({ email: 'clerk@example.com', password: 'a long passphrase here', emailConfirmed: true });
  const { token } = await gatehouseServices(app.gatehouse).accessTokens.issue(user);
  return { app, scheme, token, userId: user.id };
}

async function routes(app: FastifyInstance): Promise<void> {
  app.get('/invoices', async () => 'invoices');
  app.get('/status', { config: { authorization: { allowAnonymous: true } } }, async () => 'ok');
  app.get('/counted', { config: { authorization: { authorize: [{ schemes: ['Counting'] }] } } }, async () => 'counted');
}

describe('a hook registered after Gatehouse', () => {
  it('reads the authenticated caller on a protected route, and the anonymous one on an anonymous route', async () => {
    const calls: string[] = [];
    const { app, token, userId } = await application(async (app, scheme) => {
      await app.register(gatehouse, { store: stores.at(-1)!, schemes: [scheme] });
      app.addHook('onRequest', async (request) => {
        calls.push(`${request.url}: ${seen(request.user)}`);
      });
      await routes(app);
    });

    expect((await app.inject({ url: '/invoices', headers: bearer(token) })).statusCode).toBe(200);
    expect((await app.inject({ url: '/status' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/status', headers: bearer(token) })).statusCode).toBe(200);
    expect((await app.inject({ url: '/nowhere' })).statusCode).toBe(404);
    // Credentials sent to an anonymous route are not read: its caller is anonymous.
    expect(calls).toEqual([`/invoices: user ${userId}`, '/status: anonymous', '/status: anonymous', '/nowhere: anonymous']);
  });

  it('is not reached by a request the pipeline refused', async () => {
    const calls: string[] = [];
    const { app } = await application(async (app, scheme) => {
      await app.register(gatehouse, { store: stores.at(-1)!, schemes: [scheme] });
      await routes(app);
      // After the routes too: Fastify gives a route every hook of the application, whenever added.
      app.addHook('onRequest', async (request) => {
        calls.push(`${request.url}: ${seen(request.user)}`);
      });
    });

    expect((await app.inject({ url: '/invoices' })).statusCode).toBe(401);
    expect(calls).toEqual([]);
  });

  it('reads the caller in a plugin of the application too', async () => {
    const calls: string[] = [];
    const { app, token, userId } = await application(async (app, scheme) => {
      await app.register(gatehouse, { store: stores.at(-1)!, schemes: [scheme] });
      await app.register(async (reports) => {
        reports.addHook('onRequest', async (request) => {
          calls.push(seen(request.user));
        });
        reports.get('/reports', async () => 'reports');
      });
    });

    expect((await app.inject({ url: '/reports', headers: bearer(token) })).statusCode).toBe(200);
    expect(calls).toEqual([`user ${userId}`]);
  });
});

describe('a hook registered before Gatehouse', () => {
  it('runs before authentication, and refuses a request before its credentials are read', async () => {
    const calls: string[] = [];
    const { app, scheme } = await application(async (app, scheme) => {
      app.addHook('onRequest', async (request, reply) => {
        calls.push(`before: ${seen(request.user)}`);
        if (request.headers['x-maintenance'] !== undefined) return reply.code(503).send({ maintenance: true });
      });
      await app.register(gatehouse, { store: stores.at(-1)!, schemes: [scheme] });
      app.addHook('onRequest', async (request) => {
        calls.push(`after: ${seen(request.user)}`);
      });
      await routes(app);
    });

    const refused = await app.inject({ url: '/counted', headers: { 'x-maintenance': '1' } });
    expect(refused.statusCode).toBe(503);
    expect(scheme.calls).toBe(0);
    expect(calls).toEqual(['before: no user yet']);

    calls.length = 0;
    expect((await app.inject({ url: '/counted' })).statusCode).toBe(401);
    expect(scheme.calls).toBe(1);
    expect(calls).toEqual(['before: no user yet']);

    calls.length = 0;
    expect((await app.inject({ url: '/status' })).statusCode).toBe(200);
    expect(calls).toEqual(['before: no user yet', 'after: anonymous']);
  });
});
