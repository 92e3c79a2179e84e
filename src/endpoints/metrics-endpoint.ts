/**
 * Prometheus metrics for any host (decisions 0057 and 0089): the `GET /metrics` answer, the
 * request histogram fed by route pattern, the store outages, and what the metrics hear from the
 * services. A host only tells it three things, each at the edge of what it observes: that a
 * request was answered (method, route pattern, status, time), that an error went by, and who is
 * asking for the metrics. Fastify's plugin (http/metrics-plugin.ts) and the Express, Hono and
 * NestJS hosts are thin adapters of it.
 */
import type { GatehouseMetrics } from '../platform/metrics/gatehouse-metrics.ts';
import { problem } from '../security/problem-details.ts';
import type { Services } from '../services.ts';
import { isStoreUnavailable } from '../store/kysely/store-errors.ts';
import type { EndpointResponse } from './endpoint.ts';
import { type MetricsCaller, metricsAccess } from './metrics-access.ts';
import { problemResponse } from './problem-response.ts';
import { refusalHeaders } from './response-headers.ts';

/** Where the metrics are served unless the `metrics.path` option says otherwise. */
export const DEFAULT_METRICS_PATH = '/metrics';

export interface MetricsEndpointOptions {
  readonly collector: GatehouseMetrics;
  readonly services: Services;
  /** @default DEFAULT_METRICS_PATH */
  readonly path?: string | undefined;
  /** `METRICS_TOKEN`, if any. */
  readonly token: string | undefined;
  /** `TRUST_PROXY` trusts a proxy: a loopback peer may speak for anyone. */
  readonly behindProxy: boolean;
  /** Production answers carry `Strict-Transport-Security`, as every answer of the service does. */
  readonly production: boolean;
  /** The path pattern of Gatehouse's endpoint at a path, where the host does not route them itself (`EndpointsHandler.routeOf`). */
  readonly endpointRoute?: (method: string, pathname: string) => string | undefined;
}

/** The metrics as a host serves them. */
export interface MetricsEndpoint {
  readonly collector: GatehouseMetrics;
  readonly path: string;
  /** Whether the metrics answer `method` on `pathname`: GET (and HEAD, as Fastify exposes it) at `path`. */
  serves(method: string, pathname: string): boolean;
  /** The metrics for a caller `metricsAccess` lets in; for anyone else the 404 of a path that does not exist. */
  answer(caller: MetricsCaller): Promise<EndpointResponse>;
  /**
   * The route pattern of a request Gatehouse answers itself (the metrics, one of its endpoints),
   * for a host that does not route them; undefined for the application's routes, which the host names.
   */
  routeOf(method: string, pathname: string): string | undefined;
  /**
   * Labels the requests to `pathname` with it: a path the host serves outside its routes, as
   * middleware (an application's GraphQL endpoint), which would otherwise count as unmatched.
   */
  labelPath(pathname: string): void;
  /** One answered request; `route` is its route's pattern, never the raw URL (undefined when no route matched). */
  requestAnswered(method: string, route: string | undefined, status: number, ms: number): void;
  /** An error on a request's way: a store out of reach is counted (the host answers it 503). */
  errorSeen(error: unknown): void;
  /** Stops hearing the services: the hashing queue outlives the instance. */
  close(): void;
}

export function metricsEndpoint(options: MetricsEndpointOptions): MetricsEndpoint {
  const { collector, services, path = DEFAULT_METRICS_PATH, production } = options;
  const allowed = metricsAccess({ token: options.token, behindProxy: options.behindProxy });
  const headers = refusalHeaders(production);
  const stopObserving = observeServices(collector, services);
  const serves = (method: string, pathname: string) => pathname === path && (method === 'GET' || method === 'HEAD');
  const labelledPaths = new Set<string>();
  return {
    collector,
    path,
    serves,
    async answer(caller) {
      if (!allowed(caller)) return problemResponse(problem('GH_NOT_FOUND', (m) => m.problemNoSuchResource), headers);
      const { contentType, text } = await collector.exposition();
      return { status: 200, headers: { ...headers, 'content-type': contentType }, body: text };
    },
    routeOf: (method, pathname) => (serves(method, pathname) ? path : labelledPaths.has(pathname) ? pathname : options.endpointRoute?.(method, pathname)),
    labelPath: (pathname) => void labelledPaths.add(pathname),
    requestAnswered: (method, route, status, ms) => collector.requestAnswered(method, route, status, ms),
    // Counted here rather than where the error becomes a 503: each host's error path stays one mapping.
    errorSeen(error) {
      if (isStoreUnavailable(error)) collector.storeWasUnavailable();
    },
    close: stopObserving,
  };
}

/**
 * What the metrics learn from the services: sign-in results, security events, the revocation feed
 * and the hashing queue. Returns the way to stop hearing the queue, which outlives the instance.
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
