import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApplicationPhase, type PipelinePhase, requestPipeline, requestPipelinePlugin, type RoutePhase } from './request-pipeline.ts';
import { PolicyProvider } from '../security/authorization/index.ts';
import type { PolicyEvaluator } from '../security/authentication/index.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Every request records the hooks it passes, in the order it passes them. */
type Recorded = FastifyRequest & { passed?: string[] };

function record(request: FastifyRequest, name: string): void {
  const recorded = request as Recorded;
  recorded.passed = [...(recorded.passed ?? []), name];
}

function applicationPhase(name: string): ApplicationPhase {
  return {
    scope: 'application',
    register: (app) => {
      app.addHook('onRequest', async (request) => record(request, name));
    },
  };
}

function routePhase(name: string, hook: 'onRequest' | 'preHandler' = 'onRequest'): RoutePhase {
  return {
    scope: 'route',
    forRoute: (route) => (route.url === '/skipped' ? undefined : async (request: FastifyRequest) => record(request, `${name} (${hook})`)),
  };
}

async function passed(phases: readonly PipelinePhase[], url = '/'): Promise<string[]> {
  const app = Fastify();
  apps.push(app);
  await app.register(requestPipelinePlugin, { phases });
  const own = async (request: FastifyRequest) => record(request, 'the route’s own');
  const handler = async (request: FastifyRequest, reply: FastifyReply) => reply.send((request as Recorded).passed);
  app.get('/', { onRequest: own, preHandler: own }, handler);
  app.get('/skipped', { onRequest: own }, handler);
  return (await app.inject({ url })).json();
}

describe('the request pipeline', () => {
  it('lists Gatehouse’s phases in the order requests meet them, each with its hook', () => {
    const phases = requestPipeline({
      authorization: { policies: new PolicyProvider({ policies: {} }), evaluator: {} as PolicyEvaluator },
      crossSite: () => true,
      corsOrigins: [],
      antiforgery: { secret: 'a'.repeat(43), production: false },
    });
    expect(phases.map(({ phase, hook, by }) => `${phase}: ${hook}, ${by.scope}`)).toEqual([
      'draining: onRequest, application',
      'CORS: onRequest, application',
      'authentication: onRequest, application',
      'authorization: onRequest, application',
      'cross-site: onRequest, application',
      'rate limit per client: onRequest, route',
      'antiforgery: preValidation, route',
      'rate limit per account: preHandler, route',
    ]);
  });

  it('runs application phases in the list’s order, then the route phases a route needs, then the route’s own hooks', async () => {
    const phases: PipelinePhase[] = [
      { phase: 'first', hook: 'onRequest', by: applicationPhase('first') },
      { phase: 'second', hook: 'onRequest', by: applicationPhase('second') },
      { phase: 'limit', hook: 'onRequest', by: routePhase('limit') },
      { phase: 'account', hook: 'preHandler', by: routePhase('account', 'preHandler') },
    ];
    expect(await passed(phases)).toEqual(['first', 'second', 'limit (onRequest)', 'the route’s own', 'account (preHandler)', 'the route’s own']);
    expect(await passed(phases, '/skipped')).toEqual(['first', 'second', 'the route’s own']);
  });

  it('refuses a list Fastify would run in another order', async () => {
    const shared = applicationPhase('shared');
    const refusals: [PipelinePhase[], RegExp][] = [
      [
        [
          { phase: 'limit', hook: 'preHandler', by: routePhase('limit') },
          { phase: 'first', hook: 'onRequest', by: applicationPhase('first') },
        ],
        /"first" \(onRequest\) after "limit" \(preHandler\), which Fastify runs later/,
      ],
      [
        [
          { phase: 'limit', hook: 'onRequest', by: routePhase('limit') },
          { phase: 'first', hook: 'onRequest', by: applicationPhase('first') },
        ],
        /"first" \(onRequest\) after "limit" \(onRequest\): a route's own hooks run after the application's/,
      ],
      [
        [
          { phase: 'one', hook: 'onRequest', by: shared },
          { phase: 'other', hook: 'onRequest', by: applicationPhase('other') },
          { phase: 'two', hook: 'onRequest', by: shared },
        ],
        /"two" \(onRequest\) after "other" \(onRequest\), apart from the phases its code also runs/,
      ],
    ];
    for (const [phases, message] of refusals) {
      const app = Fastify();
      apps.push(app);
      await expect(app.register(requestPipelinePlugin, { phases })).rejects.toThrow(message);
    }
  });
});
