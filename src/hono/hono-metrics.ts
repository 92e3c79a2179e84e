import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { MetricsEndpoint } from '../endpoints/metrics-endpoint.ts';
import { toResponse } from '../endpoints/web-exchange.ts';
import { routePattern } from './route-protection.ts';

/**
 * The metrics' middleware on Hono (endpoints/metrics-endpoint.ts): their path answered here, every
 * other request timed until its answer is made and labelled by the route that made it. The access
 * rule reads the socket's peer, which only Node's request tells (`nodeRequest`): on other runtimes
 * only the token lets a scraper in. `seen` hears each request it times.
 */
export function honoMetrics(metrics: MetricsEndpoint, nodeRequest: (c: Context) => IncomingMessage | undefined, seen: (request: Request) => void): MiddlewareHandler {
  return async (c, next) => {
    seen(c.req.raw);
    const started = performance.now();
    const { method, path } = c.req;
    if (metrics.serves(method, path)) {
      const incoming = nodeRequest(c);
      const authorization = incoming === undefined ? c.req.header('authorization') : incoming.headers.authorization;
      const answer = toResponse(await metrics.answer({ socketAddress: incoming?.socket.remoteAddress, authorization }));
      metrics.requestAnswered(method, metrics.path, answer.status, performance.now() - started);
      return answer;
    }
    await next();
    metrics.requestAnswered(method, metrics.routeOf(method, path) ?? routePattern(c), c.res.status, performance.now() - started);
  };
}
