import type { IncomingMessage } from 'node:http';
import type { MetricsEndpoint } from '../endpoints/metrics-endpoint.ts';
import { nodeMetrics } from '../endpoints/node-metrics.ts';
import { nodeRequestOf, type PlatformRequest } from './nest-requests.ts';

/** What a platform's request says of its route: Express's `route`, Fastify's `routeOptions`. */
interface RoutedRequest extends PlatformRequest {
  readonly route?: { readonly path?: unknown };
  readonly routeOptions?: { readonly url?: string };
}

/** The pattern of the route each request reached, by Node's request (the middleware sees only Node's on platform-fastify). */
const reached = new WeakMap<IncomingMessage, string>();

/**
 * Remembers the pattern of the route a request reached (`/documents/:id`), for the metrics' label:
 * called by the guard, which runs at every route on either platform.
 */
export function rememberRoute(request: RoutedRequest): void {
  const pattern = request.routeOptions?.url ?? request.route?.path;
  if (typeof pattern === 'string') reached.set(nodeRequestOf(request), pattern);
}

/** The metrics' middleware on NestJS: the module applies it first, on every path. */
export function nestMetrics(metrics: MetricsEndpoint) {
  return nodeMetrics(metrics, (request) => reached.get(request));
}
