/**
 * Options given in code are checked like settings: a JavaScript application (no compiler to
 * catch a typo) that misspells an option, a feature, a route's metadata or a scheme's name
 * fails to start, told the name and the closest known one, instead of starting with a feature
 * still on, a policy left out, or a route that answers 500 to every request.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticateResult, type AuthenticationHandler, AuthorizationPolicyBuilder } from 'gatehouse-auth';
import { configFromSettings, gatehouse, routeGroup, serverOptions } from 'gatehouse-auth/fastify';
import { createEvents, gatehouseGraphQL } from 'gatehouse-auth/graphql';
import { createStore } from 'gatehouse-auth/store';

const settings = { databaseUrl: 'sqlite::memory:' };

/** A scheme of the application's own, by which routes and policies name it. */
const partnerScheme: AuthenticationHandler = {
  scheme: 'Partner',
  authenticate: () => AuthenticateResult.noResult(),
  challenge: () => ({ wwwAuthenticate: 'Partner' }),
};

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A new application, as a JavaScript caller writes it: options are plain objects no compiler saw. */
function application(): FastifyInstance {
  const app = Fastify(serverOptions(configFromSettings(settings)));
  apps.push(app);
  return app;
}

/** Registers Gatehouse with `options` (cast past the types, as JavaScript passes them) and starts. */
async function start(options: Record<string, unknown>, routes?: (app: FastifyInstance) => void | Promise<void>): Promise<FastifyInstance> {
  const app = application();
  await app.register(gatehouse, { settings, ...options } as never);
  if (routes) await app.register(async (scope) => routes(scope));
  await app.ready();
  return app;
}

describe('misspelt options of the gatehouse plugin', () => {
  it.each([
    ['a feature: cookie instead of cookies', { features: { cookie: false, tokens: false } }, /^features has no option "cookie"; did you mean "cookies"\?/],
    ['an option: polices instead of policies', { polices: {} }, /^gatehouse has no option "polices"; did you mean "policies"\?/],
    ['an option: fallbackPolcy', { fallbackPolcy: null }, /^gatehouse has no option "fallbackPolcy"; did you mean "fallbackPolicy"\?/],
    ['a page option', { pages: { productname: 'Help desk' } }, /^pages has no option "productname"; did you mean "productName"\?/],
    ['a page renderer', { pages: { renderers: { logon: () => '' } } }, /^pages.renderers has no option "logon"; did you mean "login"\?/],
    ['an OpenAPI option', { openapi: { pth: '/api.json' } }, /^openapi has no option "pth"; did you mean "path"\?/],
    ['a metrics option', { metrics: { paht: '/stats' } }, /^metrics has no option "paht"; did you mean "path"\?/],
    ['a name far from any', { xyz: 1 }, /^gatehouse has no option "xyz"; the known ones are settings, config, store, /],
  ])('refuses %s, naming it and the closest known name', async (_, options, message) => {
    await expect(start(options)).rejects.toThrow(message);
  });

  it('refuses a feature that is not true or false (the string "false" would turn it on)', async () => {
    await expect(start({ features: { cookies: 'false' } })).rejects.toThrow('features.cookies must be true or false (got "false").');
  });

  it('refuses features that are not an object (false would turn nothing off)', async () => {
    await expect(start({ features: false })).rejects.toThrow('features must be an object (got false).');
  });

  it("refuses a misspelt setting of an external provider, and a misspelt setting with the closest one", async () => {
    const oidc = { acme: { issuer: 'https://id.example.com', clientId: 'id', clientSecret: 'secret', trustEmial: true } };
    await expect(start({ settings: { ...settings, oidc } })).rejects.toThrow(/^oidc.acme.trustEmial must be one of a provider's settings; did you mean "trustEmail"\?/);
    await expect(start({ settings: { ...settings, cookieHour: 2 } })).rejects.toThrow(/^cookieHour must be one of Gatehouse's settings; did you mean "cookieHours"\?/);
  });

  it('still starts with every option spelt right', async () => {
    const app = await start({ features: { passkeys: false }, pages: { productName: 'Help desk' }, openapi: { path: '/api.json' }, schemes: [partnerScheme] });
    expect((await app.inject({ url: '/api.json' })).statusCode).toBe(200);
  });
});

describe('misspelt options of the other entry points', () => {
  it('refuses a misspelt GraphQL limit', async () => {
    const app = application();
    await app.register(gatehouse, { settings });
    await expect(app.register(gatehouseGraphQL, { typeDefs: 'type Query { a: Int }', limits: { maxDeph: 3 } } as never).ready()).rejects.toThrow(
      /^gatehouseGraphQL: limits has no option "maxDeph"; did you mean "maxDepth"\?/,
    );
  });

  it('refuses a misspelt store option (the tables would have no prefix)', async () => {
    await expect(createStore('sqlite::memory:', { tablePrefx: 'gh_' } as never)).rejects.toThrow(/^createStore has no option "tablePrefx"; did you mean "tablePrefix"\?/);
  });

  it('refuses a misspelt events option (the events would stay on one instance)', () => {
    expect(() => createEvents({ redisURL: 'redis://127.0.0.1:6379' } as never)).toThrow(/^createEvents has no option "redisURL"; did you mean "redisUrl"\?/);
  });
});

describe('routes and policies naming schemes', () => {
  it('refuses at start a route naming an unknown scheme, naming the route and the closest scheme', async () => {
    const routes = (app: FastifyInstance) => {
      app.get('/reports', { config: { authorization: { authorize: [{ schemes: ['Bearr'] }] } } }, async () => ({ reports: [] }));
    };
    await expect(start({}, routes)).rejects.toThrow(/^GET \/reports: no authentication scheme is registered as "Bearr"; did you mean "Bearer"\?/);
  });

  it('refuses a route registered on the application itself, at registration', async () => {
    const app = application();
    await app.register(gatehouse, { settings, schemes: [partnerScheme] });
    expect(() => app.post('/orders', { config: { authorization: { authorize: [{ schemes: ['Partners'] }] } } }, async () => 'x')).toThrow(
      /^POST \/orders: no authentication scheme is registered as "Partners"; did you mean "Partner"\?/,
    );
  });

  it('refuses a route naming a scheme whose feature is off', async () => {
    const routes = (app: FastifyInstance) => {
      app.get('/keys', { config: { authorization: { authorize: [{ schemes: ['ApiKey'] }] } } }, async () => 'x');
    };
    await expect(start({ features: { apiKeys: false } }, routes)).rejects.toThrow(/^GET \/keys: no authentication scheme is registered as "ApiKey"/);
  });

  it('refuses a group naming an unknown scheme, naming the route it reaches', async () => {
    const routes = async (app: FastifyInstance) => {
      await app.register(routeGroup({ authorize: [{ schemes: ['Cookie'] }] }, async (group) => void group.get('/desk', async () => 'x')));
    };
    await expect(start({}, routes)).rejects.toThrow(/^GET \/desk: no authentication scheme is registered as "Cookie"; did you mean "Cookies"\?/);
  });

  it('refuses a named policy naming an unknown scheme, even if no route uses it', async () => {
    const policies = { Partners: new AuthorizationPolicyBuilder('Partnr').requireAuthenticatedUser().build() };
    await expect(start({ policies, schemes: [partnerScheme] })).rejects.toThrow(/^policy "Partners": no authentication scheme is registered as "Partnr"; did you mean "Partner"\?/);
  });

  it('serves a route naming the application’s own scheme', async () => {
    const app = await start({ schemes: [partnerScheme] }, (scope) => {
      scope.get('/partners', { config: { authorization: { authorize: [{ schemes: ['Partner'] }] } } }, async () => 'x');
    });
    expect((await app.inject({ url: '/partners' })).statusCode).toBe(401);
  });

  it.each([
    ['authorise instead of authorize', { authorise: [{ policy: 'Admin' }] }, /^GET \/x: config.authorization has no option "authorise"; did you mean "authorize"\?/],
    ['polcy instead of policy', { authorize: [{ polcy: 'Admin' }] }, /^GET \/x: config.authorization.authorize\[0\] has no option "polcy"; did you mean "policy"\?/],
    ['a string for authorize', { authorize: 'Admin' }, /^GET \/x: config.authorization.authorize must be an array/],
    ['a string for roles', { authorize: [{ roles: 'Admin' }] }, /^GET \/x: config.authorization.authorize\[0\].roles must be an array of names/],
  ])('refuses route metadata with %s', async (_, authorization, message) => {
    await expect(start({}, (app) => void app.get('/x', { config: { authorization } } as never, async () => 'x'))).rejects.toThrow(message);
  });

  it('refuses group metadata with a misspelt name', () => {
    expect(() => routeGroup({ allowAnonymus: true } as never, async () => undefined)).toThrow(
      /^routeGroup has no option "allowAnonymus"; did you mean "allowAnonymous"\?/,
    );
  });
});
