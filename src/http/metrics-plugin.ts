import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { MetricsEndpoint } from '../endpoints/metrics-endpoint.ts';
import { writeResponse } from './endpoint-route.ts';

export interface MetricsPluginOptions {
  readonly metrics: MetricsEndpoint;
}

/**
 * The metrics on Fastify (endpoints/metrics-endpoint.ts): a route at their path, and the hooks
 * that tell them of each answer and error. Registered before the routes, whose answers it times by
 * route pattern (never the raw URL: ids and junk paths would make a series each).
 */
async function metricsRoutes(app: FastifyInstance, { metrics }: MetricsPluginOptions): Promise<void> {
  app.addHook('onResponse', async (request, reply) => {
    metrics.requestAnswered(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
  });
  app.addHook('onError', async (_request, _reply, error) => metrics.errorSeen(error));
  app.get(
    metrics.path,
    // Anonymous to the pipeline (no scheme reads the token); the check is the metrics' own.
    { schema: { hide: true }, config: { authorization: { allowAnonymous: true } } },
    async (request, reply) => writeResponse(reply, await metrics.answer({ socketAddress: request.socket.remoteAddress, authorization: request.headers.authorization })),
  );
}

export const metricsPlugin = fp(metricsRoutes, { name: 'gatehouse-metrics', fastify: '5.x' });
