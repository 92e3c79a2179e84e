/**
 * Gatehouse registered into an application of its own, as the library's users do: settings in
 * code, the application's policies, handlers and schemes, its fallback policy, resource checks in
 * its handlers, and the features it turns off. On SQLite: nothing here depends on the engine.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  type AuthorizationHandlerContext,
  AuthorizationPolicyBuilder,
  type AuthorizationRequirement,
  Claim,
  ClaimsIdentity,
  ClaimsPrincipal,
  ProblemError,
  ResourceRequirementHandler,
} from 'gatehouse-auth';
import {
  type AuthorizationResultHandler,
  ConfigError,
  configFromSettings,
  gatehouse,
  type GatehouseOptions,
  type GatehouseSettings,
  routeGroup,
  serverOptions,
} from 'gatehouse-auth/fastify';
import { createStore, type Store } from 'gatehouse-auth/store';
import { bearer, json } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

interface Invoice {
  readonly id: number;
  readonly ownerId: string;
}

class InvoiceOwnerRequirement implements AuthorizationRequirement {
  readonly description = 'the invoice owner';
}

class InvoiceOwnerHandler extends ResourceRequirementHandler<InvoiceOwnerRequirement, Invoice> {
  constructor() {
    super(InvoiceOwnerRequirement, (resource): resource is Invoice => typeof (resource as Invoice | null)?.ownerId === 'string');
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: InvoiceOwnerRequirement, invoice: Invoice): void {
    if (context.user.subject === invoice.ownerId) context.succeed(requirement);
  }
}

/** A scheme of the application's own: `X-Partner: <name>` (a stand-in for a signed header). */
const partnerScheme: AuthenticationHandler = {
  scheme: 'Partner',
  authenticate(request) {
    const value = request.headers['x-partner'];
    if (value === undefined) return AuthenticateResult.noResult();
    if (value !== 'acme') return AuthenticateResult.fail('Partner', 'Unknown partner');
    return AuthenticateResult.success('Partner', new ClaimsPrincipal([new ClaimsIdentity([new Claim('partner', 'acme')], 'Partner')]));
  },
  challenge: (result) => ({ wwwAuthenticate: 'Partner', ...(result.kind === 'fail' ? { detail: result.message } : {}) }),
};

const invoices: Invoice[] = [];
const apps: FastifyInstance[] = [];
const stores: Store[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const store of stores.splice(0)) await store.close();
});

/** An application with its own routes, on a fresh in-memory store. */
async function application(options: Omit<GatehouseOptions, 'store'> = {}, settings: GatehouseSettings = {}): Promise<FastifyInstance> {
  const config = configFromSettings(settings);
  const store = await createStore('sqlite::memory:');
  stores.push(store);
  const app = Fastify(serverOptions(config));
  apps.push(app);
  await app.register(gatehouse, {
    settings,
    store,
    handlers: [new InvoiceOwnerHandler()],
    ...options,
  });
  if (options.policies) {
    app.get('/reports', { config: { authorization: { authorize: [{ policy: 'PremiumOnly' }] } } }, async () => ({ reports: [] }));
  }
  app.get('/open', async (request) => ({ name: request.user.name ?? null }));
  app.post('/invoices/:id/pay', { config: { authorization: { allowAnonymous: true } } }, async () => {
    throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: 7 });
  });
  // Only with the application's scheme: a route naming a scheme nobody registered fails the start.
  if (options.schemes?.includes(partnerScheme)) {
    app.get('/partners', { config: { authorization: { authorize: [{ schemes: ['Partner'] }] } } }, async (request) => ({
      partner: request.user.findFirst('partner')?.value ?? null,
    }));
  }
  app.get<{ Params: { id: string } }>('/invoices/:id', async (request) => {
    const invoice = invoices.find((item) => item.id === Number(request.params.id));
    await request.authorize(invoice, new InvoiceOwnerRequirement());
    return invoice;
  });
  await app.register(
    routeGroup({ authorize: [{ roles: ['Accountant'] }] }, async (group) => {
      // A plugin nested in the group: the group's protection reaches its routes too.
      await group.register(async (nested) => {
        nested.get('/ledger', async () => ({ ledger: [] }));
      });
    }),
  );
  await app.ready();
  return app;
}

async function tokenFor(app: FastifyInstance, roles: string[] = []): Promise<{ token: string; id: number }> {
  const user = await app.gatehouse.users.create({ email: `u${invoices.length}-${Math.random()}@example.com`, password: 'a long passphrase here', emailConfirmed: true, roles });
  const { token } = await gatehouseServices(app.gatehouse).accessTokens.issue(user);
  return { token, id: user.id };
}

describe('register(gatehouse, …) in an application of its own', () => {
  it('protects the application routes with the fallback policy: 401 without credentials, 200 with a token', async () => {
    const app = await application();
    expect((await app.inject({ url: '/open' })).statusCode).toBe(401);
    const { token } = await tokenFor(app);
    const response = await app.inject({ url: '/open', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    expect(json(response).name).toMatch(/@example\.com$/);
  });

  it('with fallbackPolicy null, opens routes that say nothing, still reads credentials, and refuses bad ones', async () => {
    const app = await application({ fallbackPolicy: null });
    expect(json(await app.inject({ url: '/open' }))).toEqual({ name: null });
    const { token } = await tokenFor(app);
    expect(json(await app.inject({ url: '/open', headers: bearer(token) })).name).toMatch(/@example\.com$/);
    expect((await app.inject({ url: '/open', headers: bearer(`${token}x`) })).statusCode).toBe(401);
  });

  it('keeps its own routes protected whatever the fallback policy is', async () => {
    const app = await application({ fallbackPolicy: null });
    expect((await app.inject({ url: '/admin/users' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/account/logout' })).statusCode).toBe(401);
  });

  it('answers a refused resource check with 403 through the result handler, and lets the owner in', async () => {
    const refusals: string[][] = [];
    const resultHandler: AuthorizationResultHandler = {
      challenge: (_request, reply) => reply.code(401).send({ refused: 'who are you' }),
      forbid: (_request, reply, schemes) => {
        refusals.push([...schemes]);
        return reply.code(403).send({ refused: 'not yours' });
      },
    };
    const app = await application({ resultHandler });
    const owner = await tokenFor(app);
    const other = await tokenFor(app);
    invoices.push({ id: 7, ownerId: String(owner.id) });
    expect(json(await app.inject({ url: '/invoices/7', headers: bearer(owner.token) }))).toEqual({ id: 7, ownerId: String(owner.id) });
    const refused = await app.inject({ url: '/invoices/7', headers: bearer(other.token) });
    expect(refused.statusCode).toBe(403);
    expect(json(refused)).toEqual({ refused: 'not yours' });
    expect(refusals).toEqual([['Bearer']]);
    // An unknown invoice is no invoice of the caller's: refused the same way, nothing leaks.
    expect((await app.inject({ url: '/invoices/8', headers: bearer(owner.token) })).statusCode).toBe(403);
  });

  it('reaches routes of plugins nested in a group with the group’s roles', async () => {
    const app = await application();
    const clerk = await tokenFor(app);
    const accountant = await tokenFor(app, ['Accountant']);
    expect((await app.inject({ url: '/ledger', headers: bearer(clerk.token) })).statusCode).toBe(403);
    expect((await app.inject({ url: '/ledger', headers: bearer(accountant.token) })).statusCode).toBe(200);
  });

  it('runs a named policy of the application on a route that names it', async () => {
    const app = await application({
      policies: { PremiumOnly: new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('department', 'finance').build() } as GatehouseOptions['policies'],
    });
    const outsider = await tokenFor(app);
    const user = await app.gatehouse.users.create({
      email: `finance-${Math.random()}@example.com`,
      password: 'a long passphrase here',
      emailConfirmed: true,
      claims: [{ type: 'department', value: 'finance' }],
    });
    const { token } = await gatehouseServices(app.gatehouse).accessTokens.issue(user);
    expect((await app.inject({ url: '/reports', headers: bearer(outsider.token) })).statusCode).toBe(403);
    expect((await app.inject({ url: '/reports', headers: bearer(token) })).statusCode).toBe(200);
  });

  it('stops at start when a route names a policy the application does not have', async () => {
    await expect(application({ policies: {} as GatehouseOptions['policies'] })).rejects.toThrow(/No authorization policy is named "PremiumOnly"/);
  });

  it('authenticates with a scheme of the application and makes it the default when asked', async () => {
    const app = await application({ schemes: [partnerScheme], defaultScheme: 'Partner', fallbackPolicy: null });
    expect(json(await app.inject({ url: '/partners', headers: { 'x-partner': 'acme' } }))).toEqual({ partner: 'acme' });
    const unknown = await app.inject({ url: '/partners', headers: { 'x-partner': 'evil' } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['www-authenticate']).toBe('Partner');
    // The default scheme reads the routes that name none.
    expect((await app.inject({ url: '/open', headers: { 'x-partner': 'evil' } })).statusCode).toBe(401);
  });

  it('leaves out the routes and schemes of features turned off', async () => {
    const app = await application({ features: { admin: false, tokens: false, twoFactor: false } });
    const { token } = await tokenFor(app, ['Admin']);
    expect((await app.inject({ url: '/admin/users' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/auth/token', payload: {} })).statusCode).toBe(404);
    expect((await app.inject({ url: '/.well-known/jwks.json' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/account/2fa' })).statusCode).toBe(404);
    // Without the Bearer scheme a token is not a credential: the route asks for another.
    expect((await app.inject({ url: '/open', headers: bearer(token) })).statusCode).toBe(401);
  });
});

describe('errors of the application', () => {
  it('answers a ProblemError as problem+json with its own status and code', async () => {
    const app = await application();
    const response = await app.inject({ method: 'POST', url: '/invoices/7/pay' });
    expect(response.statusCode).toBe(409);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toEqual({
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      detail: 'A paid invoice cannot change.',
      code: 'INVOICE_PAID',
      invoiceId: 7,
    });
  });

  it('refuses a status that is not an error status', () => {
    expect(() => new ProblemError(302, 'MOVED')).toThrow(RangeError);
  });
});

describe('settings in code', () => {
  it('are validated by the rules of the environment variables, and an error names the setting', () => {
    expect(configFromSettings({ accessTokenMinutes: 0.5 }).accessTokenSeconds).toBe(30);
    expect(() => configFromSettings({ accessTokenMinutes: -1 })).toThrow(/^accessTokenMinutes must be/);
    expect(() => configFromSettings({ publicUrl: 'ftp://example.com' })).toThrow(/^publicUrl must be/);
    expect(() => configFromSettings({ oidc: { acme: { issuer: 'https://id.example.com', clientId: 'a', clientSecret: '' } } })).toThrow(
      /^oidc\.acme\.clientSecret must be/,
    );
  });

  it('refuse a misspelt setting', () => {
    const error = (() => {
      try {
        configFromSettings({ acessTokenMinutes: 5 } as GatehouseSettings);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^acessTokenMinutes must be one of Gatehouse's settings/);
  });

  it('stop the registration with the same error', async () => {
    const app = Fastify();
    apps.push(app);
    await expect(app.register(gatehouse, { settings: { lockoutMaxAttempts: 0 } }).ready()).rejects.toThrow(/^lockoutMaxAttempts must be/);
  });
});
