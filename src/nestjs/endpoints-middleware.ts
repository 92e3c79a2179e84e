import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeNodeResponse } from '../endpoints/node-response.ts';
import type { GatehouseInstance } from '../hosting/gatehouse-instance.ts';

/**
 * Gatehouse's endpoints as Node middleware, the shape NestJS applies on both platforms (Express's
 * request on platform-express, Node's own through middie on platform-fastify): a request to one of
 * them is answered by the Web-standard handler, reading Node's request; any other goes on.
 */
export function endpointsMiddleware(instance: GatehouseInstance, address: (request: IncomingMessage) => string) {
  return (request: IncomingMessage & { originalUrl?: string; body?: unknown }, response: ServerResponse, next: (error?: unknown) => void): void => {
    const target = request.originalUrl ?? request.url ?? '/';
    const path = target.split('?', 1)[0]!;
    if (!instance.fetch.serves(request.method ?? 'GET', path)) return next();
    const url = new URL(target, `http://${request.headers.host ?? 'localhost'}`);
    // A body platform-express's parser read already is handed over parsed; otherwise it is read from Node's stream.
    const parsed = request.body !== undefined && request.readableEnded ? { body: request.body } : {};
    instance
      .fetch(new Request(url, { method: request.method ?? 'GET' }), { ip: address(request), node: request, ...parsed })
      .then((answer) => writeNodeResponse(response, answer))
      .catch(next);
  };
}
