/**
 * A route's own rules inside a protected group combine with the group's, as ASP.NET combines the
 * `[Authorize]` of an endpoint and its groups: all must pass, the schemes any of them names are
 * tried, and only `allowAnonymous` on the route beats them. The help desk's case: tickets live
 * in a group that requires an organization (`org_id`), and a route that asks for an agent must
 * not let an agent of no organization in. As an adopting team writes it: the public entry points,
 * its own schemes and policies, an in-memory SQLite store.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  AuthorizationPolicyBuilder,
  Claim,
  ClaimsIdentity,
  ClaimsPrincipal,
} from 'gatehouse-auth';
import { configFromSettings, gatehouse, type GatehouseOptions, routeGroup, serverOptions } from 'gatehouse-auth/fastify';
import { createStore, type Store } from 'gatehouse-auth/store';
import { bearer, json } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

/** A scheme of the application's own: header `name: value` gives a principal with claim `claim`. */
function headerScheme(scheme: string, header: string, claim: string): AuthenticationHandler {
  return {
    scheme,
    authenticate(request) {
      const value = request.headers[header];
      if (typeof value !== 'string') return AuthenticateResult.noResult();
      return AuthenticateResult.success(scheme, new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '1'), new Claim(claim, value)], scheme)]));
    },
    challenge: () => ({ wwwAuthenticate: scheme }),
  };
}

const policies = {
  // The group's rule: a caller of an organization.
  AdminOnly: new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('org_id').build(),
  // The route's rule: an agent.
  PremiumOnly: new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('agent').build(),
} as GatehouseOptions['policies'];

let app: FastifyInstance;
let store: Store;

beforeAll(async () => {
  store = await createStore('sqlite::memory:');
  app = Fastify(serverOptions(configFromSettings({})));
  await app.register(gatehouse, {
    store,
    policies,
    schemes: [headerScheme('Tenant', 'x-tenant', 'org_id'), headerScheme('Agent', 'x-agent', 'agent')],
  });
  await app.register(
    routeGroup({ authorize: [{ policy: 'AdminOnly' }] }, async (tickets) => {
      tickets.get('/tickets', async () => ({ tickets: [] }));
      tickets.post('/tickets/:id/assign', { config: { authorization: { authorize: [{ roles: ['Agent'] }] } } }, async () => ({ assigned: true }));
      tickets.get('/tickets/status', { config: { authorization: { allowAnonymous: true } } }, async (request) => ({
        anonymous: !request.user.isAuthenticated,
      }));
    }),
    { prefix: '/desk' },
  );
  // The same shape where the group and the route each name their own scheme.
  await app.register(
    routeGroup({ authorize: [{ policy: 'AdminOnly', schemes: ['Tenant'] }] }, async (queue) => {
      queue.get('/queue/next', { config: { authorization: { authorize: [{ policy: 'PremiumOnly', schemes: ['Agent'] }] } } }, async (request) => ({
        org: request.user.findFirst('org_id')?.value ?? null,
        agent: request.user.findFirst('agent')?.value ?? null,
      }));
    }),
  );
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await store.close();
});

async function tokenOf(email: string, roles: string[], claims: { type: string; value: string }[]): Promise<string> {
  const user = await app.gatehouse.users.create({ email, password: 'a long passphrase here', emailConfirmed: true, roles, claims });
  return (await gatehouseServices(app.gatehouse).accessTokens.issue(user)).token;
}

describe('group and route rules', () => {
  it('refuses an agent of no organization on a route with its own rule inside the organization group (403)', async () => {
    const token = await tokenOf('agent@example.com', ['Agent'], []);
    const response = await app.inject({ method: 'POST', url: '/desk/tickets/7/assign', headers: bearer(token) });
    expect(response.statusCode).toBe(403);
  });

  it('refuses a member of the organization who is not an agent (403), and lets one who is both in (200)', async () => {
    const member = await tokenOf('member@example.com', [], [{ type: 'org_id', value: '42' }]);
    expect((await app.inject({ method: 'POST', url: '/desk/tickets/7/assign', headers: bearer(member) })).statusCode).toBe(403);
    expect((await app.inject({ url: '/desk/tickets', headers: bearer(member) })).statusCode).toBe(200);
    const agent = await tokenOf('org-agent@example.com', ['Agent'], [{ type: 'org_id', value: '42' }]);
    expect((await app.inject({ method: 'POST', url: '/desk/tickets/7/assign', headers: bearer(agent) })).statusCode).toBe(200);
  });

  it('tries the schemes of the group and of the route: one credential alone is refused, both are let in', async () => {
    expect((await app.inject({ url: '/queue/next', headers: { 'x-agent': 'ann' } })).statusCode).toBe(403);
    expect((await app.inject({ url: '/queue/next', headers: { 'x-tenant': '42' } })).statusCode).toBe(403);
    expect((await app.inject({ url: '/queue/next' })).statusCode).toBe(401);
    const both = await app.inject({ url: '/queue/next', headers: { 'x-tenant': '42', 'x-agent': 'ann' } });
    expect(both.statusCode).toBe(200);
    expect(json(both)).toEqual({ org: '42', agent: 'ann' });
  });

  it('lets allowAnonymous on a route beat the group: served anonymously', async () => {
    const response = await app.inject({ url: '/desk/tickets/status' });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ anonymous: true });
  });
});
