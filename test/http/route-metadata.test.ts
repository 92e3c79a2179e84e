/**
 * docs/reference/http.md through the real Fastify pipeline: endpoint and group metadata combine,
 * `allowAnonymous` on an endpoint beats `authorize` on its groups, and routes that say nothing
 * get the fallback policy. Credentials are a header `x-user: <name>;<role>,<role>`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeChecks, type RouteCheckOptions, routeGroup } from '../../src/http/pipeline.ts';
import { requestPipelinePlugin } from '../../src/http/request-pipeline.ts';
import { problemErrorsPlugin } from '../../src/http/plugins/problem-errors.ts';
import { createPolicyProvider, createAuthorizationService } from '../../server/policies/policies.ts';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  AuthenticationSchemeProvider,
  PolicyEvaluator,
} from '../../src/security/authentication/index.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../../src/security/claims/index.ts';
import { systemClock } from '../../src/platform/clock.ts';

const headerScheme: AuthenticationHandler = {
  scheme: 'Header',
  authenticate(request) {
    const value = request.headers['x-user'];
    if (typeof value !== 'string') return AuthenticateResult.noResult();
    const [name, roles = ''] = value.split(';');
    const claims = [new Claim('sub', '1'), new Claim('name', name!), ...roles.split(',').filter(Boolean).map((role) => new Claim('role', role))];
    return AuthenticateResult.success('Header', new ClaimsPrincipal([new ClaimsIdentity(claims, 'Header')]));
  },
  challenge: () => ({ wwwAuthenticate: 'Header' }),
};

/** A pipeline of authentication and authorization alone. */
function checksOnly(options: RouteCheckOptions) {
  return { phases: [{ phase: 'authentication and authorization', hook: 'onRequest' as const, by: routeChecks(options) }] };
}

let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify();
  const authorization = createAuthorizationService(systemClock, 'UTC');
  await app.register(problemErrorsPlugin);
  await app.register(
    requestPipelinePlugin,
    checksOnly({
      policies: createPolicyProvider({ businessHours: { startMinute: 0, endMinute: 1439 } }),
      evaluator: new PolicyEvaluator(new AuthenticationSchemeProvider([headerScheme], () => 'Header'), authorization),
    }),
  );
  await app.register(
    routeGroup({ authorize: [{ policy: 'AdminOnly' }] }, async (group) => {
      group.get('/admin/inherits', async () => 'inherits');
      group.get('/admin/open', { config: { authorization: { allowAnonymous: true } } }, async () => 'open');
      group.get('/admin/own', { config: { authorization: { authorize: [{ roles: ['Auditor'] }] } } }, async () => 'own');
      // A plugin of the group's, two levels down: the group's protection reaches it.
      await group.register(async (nested) => {
        await nested.register(async (deeper) => {
          deeper.get('/admin/nested', async () => 'nested');
        });
      });
      // A group inside the group adds its rules to the outer group's.
      await group.register(
        routeGroup({ authorize: [{ roles: ['Auditor'] }] }, async (inner) => {
          inner.get('/admin/inner-group', async () => 'inner');
        }),
      );
    }),
  );
  await app.register(
    routeGroup({ allowAnonymous: true }, async (group) => {
      group.get('/public/inherits', async () => 'public');
      group.get('/public/guarded', { config: { authorization: { authorize: [{}] } } }, async () => 'guarded');
    }),
  );
  app.get('/plain', async (request) => request.user.name);
  await app.ready();
});

afterAll(() => app.close());

const as = (user?: string) => (user ? { 'x-user': user } : {});

describe('route and group metadata', () => {
  it('applies the group policy to routes that say nothing', async () => {
    expect((await app.inject({ url: '/admin/inherits', headers: as('ann;Admin') })).statusCode).toBe(200);
    expect((await app.inject({ url: '/admin/inherits', headers: as('bob;User') })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/inherits' })).statusCode).toBe(401);
  });

  it('applies the group policy to routes of plugins nested in the group', async () => {
    expect((await app.inject({ url: '/admin/nested', headers: as('ann;Admin') })).statusCode).toBe(200);
    expect((await app.inject({ url: '/admin/nested', headers: as('bob;User') })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/nested' })).statusCode).toBe(401);
  });

  it('combines a group nested in a group with the outer one', async () => {
    expect((await app.inject({ url: '/admin/inner-group', headers: as('cat;Auditor') })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/inner-group', headers: as('ann;Admin') })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/inner-group', headers: as('ann;Admin,Auditor') })).statusCode).toBe(200);
  });

  it('lets allowAnonymous on an endpoint beat authorize on its group, without evaluating credentials', async () => {
    const response = await app.inject({ url: '/admin/open' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('open');
  });

  it('combines the endpoint authorize with the group authorize', async () => {
    expect((await app.inject({ url: '/admin/own', headers: as('cat;Auditor') })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/own', headers: as('ann;Admin') })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/own', headers: as('ann;Admin,Auditor') })).statusCode).toBe(200);
  });

  it('lets an endpoint authorize beat allowAnonymous on its group', async () => {
    expect((await app.inject({ url: '/public/inherits' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/public/guarded' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/public/guarded', headers: as('dan') })).statusCode).toBe(200);
  });

  it('gives routes without any metadata the fallback policy (an authenticated user)', async () => {
    expect((await app.inject({ url: '/plain' })).statusCode).toBe(401);
    const response = await app.inject({ url: '/plain', headers: as('eve') });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('eve');
  });

  it('refuses at registration a route naming an unknown policy, and names the route', async () => {
    const broken = Fastify();
    await broken.register(
      requestPipelinePlugin,
      checksOnly({
        policies: createPolicyProvider({ businessHours: { startMinute: 0, endMinute: 1439 } }),
        evaluator: new PolicyEvaluator(new AuthenticationSchemeProvider([headerScheme], () => 'Header'), createAuthorizationService(systemClock, 'UTC')),
      }),
    );
    expect(() =>
      broken.get('/x', { config: { authorization: { authorize: [{ policy: 'Nope' as 'AdminOnly' }] } } }, async () => 'x'),
    ).toThrow(/^GET \/x: No authorization policy is named "Nope"\./);
    await broken.close();
  });
});
