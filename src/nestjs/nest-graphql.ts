/**
 * GraphQL on a NestJS application with Gatehouse's own endpoint (the one every host serves: the
 * document limits, the result cache, persisted and trusted documents, sockets that follow their
 * credential), on either platform: its path as a Node middleware, its sockets on the application's
 * HTTP server. For a schema served by `@nestjs/graphql`, see docs/nestjs.md.
 *
 *   const app = await NestFactory.create(AppModule, adapter);
 *   const graphql = await serveGraphQL(app, { typeDefs, resolvers });
 *   await app.listen(3000);
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { MetricsEndpoint } from '../endpoints/metrics-endpoint.ts';
import { clientAddress } from '../endpoints/node-request.ts';
import { writeNodeResponse } from '../endpoints/node-response.ts';
import type { GatehouseInstance } from '../hosting/gatehouse-instance.ts';
import { graphiqlFetchHandler } from '../graphql/graphiql/graphiql-fetch.ts';
import type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import { startNodeGraphQL } from '../graphql/graphql-upgrades.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { INSTANCE } from './gatehouse-module.ts';

/** An application's GraphQL API on NestJS. */
export interface NestGraphQL {
  /** Where it is served (`options.path`, `/graphql` by default). */
  readonly path: string;
  /** Closes the sockets with 1001 (clients reconnect) and the schema's event source; before `app.close()`. */
  close(): Promise<void>;
}

type NodeMiddleware = (request: IncomingMessage & { originalUrl?: string; body?: unknown }, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Serves the schema at its path (GET and POST, 405 for the rest; the fields carry their policies)
 * and graphql-ws on the application's server. Call it before `app.listen()`.
 */
export async function serveGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  app: INestApplication,
  options: GatehouseGraphQLOptions<Context, Policy>,
): Promise<NestGraphQL> {
  const instance = app.get<GatehouseInstance>(INSTANCE);
  const address = clientAddress(instance.config.trustProxy);
  const graphql = await startNodeGraphQL(instance.gatehouse, options);
  const { metrics } = instance;
  const middleware: NodeMiddleware = (request, response, next) => {
    const target = request.originalUrl ?? request.url ?? '/';
    if (target.split('?', 1)[0] !== graphql.path) return next();
    // Served ahead of the module's middleware, the metrics' among them: timed here.
    if (metrics !== undefined) timed(metrics, graphql.path, request.method ?? 'GET', response);
    const parsed = request.body !== undefined && request.readableEnded ? { body: request.body } : {};
    let url: URL;
    try {
      url = new URL(target, 'http://localhost');
    } catch (error) {
      return next(error);
    }
    graphql.serve(request, response, { url, ip: address(request), ...parsed }).catch(next);
  };
  app.use(middleware);
  graphql.attach(app.getHttpServer() as Server, address);
  return { path: graphql.path, close: () => graphql.close() };
}

/** Counts the request in the metrics under `route` once its answer is sent, timed from now. */
function timed(metrics: MetricsEndpoint, route: string, method: string, response: ServerResponse): void {
  const started = performance.now();
  response.once('finish', () => metrics.requestAnswered(method, route, response.statusCode, performance.now() - started));
}

/** GraphiQL at `/graphiql` and its files, open to anyone: for development only. Call it before `app.listen()`. */
export function serveGraphiQL(app: INestApplication): void {
  const graphiql = graphiqlFetchHandler();
  const middleware: NodeMiddleware = (request, response, next) => {
    const target = request.originalUrl ?? request.url ?? '/';
    if (!graphiql.serves(request.method ?? 'GET', target.split('?', 1)[0]!)) return next();
    graphiql(new Request(new URL(target, 'http://localhost'), { method: request.method ?? 'GET' }))
      .then((answer) => writeNodeResponse(response, answer))
      .catch(next);
  };
  app.use(middleware);
}
