/**
 * `request.authorize(resource, policy)` refused for an anonymous caller is answered as a route
 * protected by that policy would answer the same caller: 401 with the challenge of the scheme(s)
 * the policy would have tried, through the result handler (302 to the login page for a browser
 * navigating); an authenticated caller who fails gets 403.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  type AuthorizationHandlerContext,
  AuthorizationPolicyBuilder,
  type AuthorizationRequirement,
  ResourceRequirementHandler,
} from 'gatehouse-auth';
import { type AuthorizationResultHandler, configFromSettings, gatehouse, type GatehouseOptions, serverOptions } from 'gatehouse-auth/fastify';
import { bearer, json } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

interface Invoice {
  readonly id: number;
  readonly ownerId: string;
}

class InvoiceOwner implements AuthorizationRequirement {
  readonly description = 'the invoice owner';
}

class InvoiceOwnerHandler extends ResourceRequirementHandler<InvoiceOwner, Invoice> {
  constructor() {
    super(InvoiceOwner, (resource): resource is Invoice => typeof (resource as Invoice | null)?.ownerId === 'string');
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: InvoiceOwner, invoice: Invoice): void {
    if (context.user.subject === invoice.ownerId) context.succeed(requirement);
  }
}

/** A scheme of the application's own, never satisfied here: only its challenge matters. */
const partnerScheme: AuthenticationHandler = {
  scheme: 'Partner',
  authenticate: () => AuthenticateResult.noResult(),
  challenge: () => ({ wwwAuthenticate: 'Partner realm="invoices"' }),
};

const invoice: Invoice = { id: 7, ownerId: '999' };
const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Routes open to anonymous callers (no fallback policy) that check the invoice themselves. */
async function application(options: Omit<GatehouseOptions, 'settings'> = {}): Promise<FastifyInstance> {
  const settings = { databaseUrl: 'sqlite::memory:' };
  const app = Fastify(serverOptions(configFromSettings(settings)));
  apps.push(app);
  await app.register(gatehouse, { settings, fallbackPolicy: null, handlers: [new InvoiceOwnerHandler()], schemes: [partnerScheme], ...options });
  app.get('/invoices/7', async (request) => {
    await request.authorize(invoice, new InvoiceOwner());
    return invoice;
  });
  app.get('/partner-invoices/7', async (request) => {
    await request.authorize(invoice, new AuthorizationPolicyBuilder().authenticationSchemes('Partner').addRequirement(new InvoiceOwner()).build());
    return invoice;
  });
  app.get('/route-protected', { config: { authorization: { authorize: [{ roles: ['Accountant'] }] } } }, async () => invoice);
  await app.ready();
  return app;
}

describe('a refused resource check for an anonymous caller', () => {
  it('is a 401 with the default scheme’s challenge, as on a route protected by a policy', async () => {
    const app = await application();
    const route = await app.inject({ url: '/route-protected' });
    const response = await app.inject({ url: '/invoices/7' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['www-authenticate']).toBe(route.headers['www-authenticate']);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toEqual(json(route));
  });

  it('challenges with the schemes the policy names', async () => {
    const app = await application();
    const response = await app.inject({ url: '/partner-invoices/7' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Partner realm="invoices"');
  });

  it('sends a browser navigating to a page to the login page, as a protected route does', async () => {
    const app = await application();
    const navigation = { accept: 'text/html', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    const route = await app.inject({ url: '/route-protected', headers: navigation });
    const response = await app.inject({ url: '/invoices/7', headers: navigation });
    expect(route.statusCode).toBe(302);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/account/login?ReturnUrl=%2Finvoices%2F7');
  });

  it('goes to a replaced result handler’s challenge, and an authenticated stranger to its forbid', async () => {
    const calls: string[] = [];
    const resultHandler: AuthorizationResultHandler = {
      challenge: (_request, reply, authentication) => {
        calls.push(`challenge ${authentication.attempts.map(({ handler }) => handler.scheme).join(',')}`);
        return reply.code(401).send({ refused: 'who are you' });
      },
      forbid: (_request, reply, schemes) => {
        calls.push(`forbid ${schemes.join(',')}`);
        return reply.code(403).send({ refused: 'not yours' });
      },
    };
    const app = await application({ resultHandler });
    const anonymous = await app.inject({ url: '/invoices/7' });
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous)).toEqual({ refused: 'who are you' });

    const stranger = await app.gatehouse.users.create({ email: 'stranger@example.com', password: 'a long passphrase here', emailConfirmed: true });
    const { token } = await gatehouseServices(app.gatehouse).accessTokens.issue(stranger);
    const forbidden = await app.inject({ url: '/invoices/7', headers: bearer(token) });
    expect(forbidden.statusCode).toBe(403);
    expect(json(forbidden)).toEqual({ refused: 'not yours' });
    expect(calls).toEqual(['challenge Cookies', 'forbid Bearer']);
  });
});
