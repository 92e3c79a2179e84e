/**
 * No route is served outside Gatehouse's pipeline: an application that registers a route before
 * the plugin (with `authorize` metadata or without), in a plugin context the plugin's hooks cannot
 * reach, or while an un-awaited `register(gatehouse)` is still pending, does not start, and the
 * error names each such route and how to fix it. As an adopting team writes it: the public entry
 * points, its own Fastify instance, an in-memory SQLite store.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthorizationPolicyBuilder } from 'gatehouse-auth';
import { configFromSettings, gatehouse, type GatehouseOptions, routeGroup, serverOptions } from 'gatehouse-auth/fastify';
import { createStore, type Store } from 'gatehouse-auth/store';
import { bearer } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

const apps: FastifyInstance[] = [];
const stores: Store[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const store of stores.splice(0)) await store.close();
});

const policies = {
  AdminOnly: new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Admin').build(),
} as GatehouseOptions['policies'];

const ADMIN_ONLY = { config: { authorization: { authorize: [{ policy: 'AdminOnly' as const }] } } };

/** A new application on its own store; `build` registers Gatehouse and routes in its own order. */
async function application(build: (app: FastifyInstance, options: GatehouseOptions) => Promise<void>): Promise<FastifyInstance> {
  const store = await createStore('sqlite::memory:');
  stores.push(store);
  const app = Fastify(serverOptions(configFromSettings({})));
  apps.push(app);
  await build(app, { store, policies });
  return app;
}

const REGISTER_FIRST = /Register Gatehouse before any route, at the root of the application/;

describe('routes outside the pipeline', () => {
  it('refuses to start with a route registered before the plugin that carries authorize metadata, naming it', async () => {
    const app = await application(async (app, options) => {
      app.get('/payroll', ADMIN_ONLY, async () => ({ salaries: 'all of them' }));
      await app.register(gatehouse, options);
    });
    const start = app.ready();
    await expect(start).rejects.toThrow(/outside Gatehouse's pipeline: GET,HEAD \/payroll\./);
    await expect(start).rejects.toThrow(REGISTER_FIRST);
  });

  it('refuses to start with a route registered before the plugin that says nothing', async () => {
    const app = await application(async (app, options) => {
      app.post('/refunds', async () => ({ refunded: true }));
      await app.register(gatehouse, options);
      app.get('/after', async () => 'protected');
    });
    await expect(app.ready()).rejects.toThrow(/outside Gatehouse's pipeline: POST \/refunds\./);
  });

  it('refuses to start with the routes of a plugin registered before Gatehouse, naming every one', async () => {
    const app = await application(async (app, options) => {
      await app.register(
        async (reports) => {
          reports.get('/daily', ADMIN_ONLY, async () => 'daily');
          reports.delete('/:id', async () => 'gone');
        },
        { prefix: '/reports' },
      );
      await app.register(gatehouse, options);
    });
    await expect(app.ready()).rejects.toThrow(/outside Gatehouse's pipeline: GET,HEAD \/reports\/daily; DELETE \/reports\/:id\./);
  });

  it('refuses to start with a route added while an un-awaited register(gatehouse) is still pending', async () => {
    const app = await application(async (app, options) => {
      void app.register(gatehouse, options);
      app.get('/invoices', ADMIN_ONLY, async () => 'invoices');
    });
    await expect(app.ready()).rejects.toThrow(/outside Gatehouse's pipeline: GET,HEAD \/invoices\./);
  });

  it('refuses to start with a route of a context the plugin cannot see (Gatehouse inside an encapsulated plugin)', async () => {
    const app = await application(async (app, options) => {
      await app.register(async (api) => {
        await api.register(gatehouse, options);
        api.get('/api/seen', async () => 'seen');
      });
      app.get('/unseen', ADMIN_ONLY, async () => 'unseen');
      await app.register(
        routeGroup({ authorize: [{ policy: 'AdminOnly' }] }, async (group) => {
          group.get('/unseen-group', async () => 'x');
        }),
      );
    });
    const start = app.ready();
    await expect(start).rejects.toThrow(/outside Gatehouse's pipeline: GET,HEAD \/unseen; GET,HEAD \/unseen-group\./);
    await expect(start).rejects.not.toThrow(/\/api\/seen/);
  });

  it('starts when every route comes after the plugin, and protects them', async () => {
    const app = await application(async (app, options) => {
      await app.register(gatehouse, options);
      app.get('/payroll', ADMIN_ONLY, async () => ({ salaries: 'all of them' }));
      await app.register(
        async (reports) => {
          reports.get('/daily', async () => 'daily');
        },
        { prefix: '/reports' },
      );
    });
    await app.ready();
    expect((await app.inject({ url: '/payroll' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/reports/daily' })).statusCode).toBe(401);
    const user = await app.gatehouse.users.create({ email: 'clerk@example.com', password: 'a long passphrase here', emailConfirmed: true });
    const { token } = await gatehouseServices(app.gatehouse).accessTokens.issue(user);
    expect((await app.inject({ url: '/payroll', headers: bearer(token) })).statusCode).toBe(403);
    expect((await app.inject({ url: '/reports/daily', headers: bearer(token) })).statusCode).toBe(200);
  });

  it('refuses, when Gatehouse is loaded after the application was created (an autoloader), routes registered before it', async () => {
    const store = await createStore('sqlite::memory:');
    stores.push(store);
    const app = Fastify(serverOptions(configFromSettings({})));
    apps.push(app);
    app.get('/payroll', ADMIN_ONLY, async () => 'payroll');
    // The application existed before this copy of the library was loaded: it had no record of it.
    vi.resetModules();
    const late = await import('gatehouse-auth/fastify');
    await expect(app.register(late.gatehouse, { store, policies })).rejects.toThrow(/registered before Gatehouse[\s\S]*\/payroll \(GET, HEAD\)[\s\S]*Register Gatehouse/);
  });

  it('sees, when loaded after the application was created, the routes registered after it in contexts it cannot reach', async () => {
    const store = await createStore('sqlite::memory:');
    stores.push(store);
    const app = Fastify(serverOptions(configFromSettings({})));
    apps.push(app);
    vi.resetModules();
    const late = await import('gatehouse-auth/fastify');
    await app.register(async (api) => {
      await api.register(late.gatehouse, { store, policies });
    });
    app.get('/unseen', async () => 'unseen');
    await expect(app.ready()).rejects.toThrow(/outside Gatehouse's pipeline: GET,HEAD \/unseen\./);
  });
});
