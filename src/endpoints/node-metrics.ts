import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricsEndpoint } from './metrics-endpoint.ts';
import { writeNodeResponse } from './node-response.ts';
import { toResponse } from './web-exchange.ts';

/** Node's request as a host hands it over: Express's keeps the target as sent in `originalUrl`. */
type NodeRequest = IncomingMessage & { readonly originalUrl?: string };

/**
 * The metrics on a host that hands over Node's request and response (Express, NestJS on either
 * platform): a middleware that serves their path and times every request it sees, from then to
 * the last byte of the answer, as Fastify's `onResponse` does. `route` names the application's
 * route that answered, once it has (Gatehouse's own are named by the metrics).
 */
export function nodeMetrics(metrics: MetricsEndpoint, route: (request: NodeRequest) => string | undefined) {
  return (request: NodeRequest, response: ServerResponse, next: (error?: unknown) => void): void => {
    const started = performance.now();
    const method = request.method ?? 'GET';
    const pathname = (request.originalUrl ?? request.url ?? '/').split('?', 1)[0]!;
    response.once('finish', () => {
      metrics.requestAnswered(method, metrics.routeOf(method, pathname) ?? route(request), response.statusCode, performance.now() - started);
    });
    if (!metrics.serves(method, pathname)) return next();
    // The socket's peer, never X-Forwarded-For: the access rule is about who is on this host.
    metrics
      .answer({ socketAddress: request.socket.remoteAddress, authorization: request.headers.authorization })
      .then((answer) => writeNodeResponse(response, toResponse(answer)))
      .catch(next);
  };
}
