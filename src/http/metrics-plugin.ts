import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatehouseMetrics } from '../platform/metrics/gatehouse-metrics.ts';
import type { Services } from '../services.ts';
import { isStoreUnavailable } from '../store/kysely/store-errors.ts';
import { type MetricsCaller, metricsAccess } from './metrics-access.ts';
import { problem, sendProblem } from './problem.ts';

/** Where the metrics are served unless the plugin's `metrics.path` says otherwise. */
export const DEFAULT_METRICS_PATH = '/metrics';

export interface MetricsPluginOptions {
  readonly metrics: GatehouseMetrics;
  readonly services: Services;
  readonly path: string;
  /** `METRICS_TOKEN`, if any. */
  readonly token: string | undefined;
  /** `TRUST_PROXY` trusts a proxy: a loopback peer may speak for anyone. */
  readonly behindProxy: boolean;
}

/**
 * `GET /metrics` in Prometheus's text format, for the callers `metricsAccess` lets in; everyone
 * else gets the 404 of a path that does not exist. Registered before the routes, whose answers it
 * times by route pattern (never the raw URL: ids and junk paths would make a series each).
 */
async function metricsRoutes(app: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const { metrics } = options;
  app.addHook('onResponse', async (request, reply) => {
    metrics.requestAnswered(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
  });
  // Counted here rather than where the error becomes a 503: the error handler stays one mapping.
  app.addHook('onError', async (_request, _reply, error) => {
    if (isStoreUnavailable(error)) metrics.storeWasUnavailable();
  });
  const stopObserving = observeServices(metrics, options.services);
  app.addHook('onClose', async () => stopObserving());

  const allowed = metricsAccess({ token: options.token, behindProxy: options.behindProxy });
  app.get(
    options.path,
    // Anonymous to the pipeline (no scheme reads the token); the check below is the metrics' own.
    { schema: { hide: true }, config: { authorization: { allowAnonymous: true } } },
    async (request, reply) => {
      const caller: MetricsCaller = { socketAddress: request.socket.remoteAddress, authorization: request.headers.authorization };
      if (!allowed(caller)) return sendProblem(reply, problem('GH_NOT_FOUND', 'There is no such resource.'));
      const { contentType, text } = await metrics.exposition();
      return reply.header('cache-control', 'no-store').type(contentType).send(text);
    },
  );
}

/**
 * What the metrics learn from the services: sign-in results, security events, the revocation feed
 * and the hashing queue. Returns the way to stop hearing the queue, which outlives the app.
 */
function observeServices(metrics: GatehouseMetrics, services: Services): () => void {
  const stops = [
    services.signIn.onAnswered((step, result) => metrics.signInAnswered(step, result)),
    services.audit.onRecorded((type) => metrics.securityEvent(type)),
    metrics.watchHashQueue(services.hashing),
  ];
  metrics.watchRevocationFeed(services.revocationFeed);
  return () => {
    for (const stop of stops) stop();
  };
}

export const metricsPlugin = fp(metricsRoutes, { name: 'gatehouse-metrics', fastify: '5.x' });
