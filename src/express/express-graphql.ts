/**
 * GraphQL on Express: the GraphQL endpoint's HTTP answers through the Web-standard handler, and its
 * sockets on the Node server's upgrades, as `express-ws` takes the application and its server.
 *
 *   const graphql = await auth.graphql({ typeDefs, resolvers });
 *   app.use(graphql.handler);
 *   const server = app.listen(3000);
 *   graphql.attach(server, app);
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Express, RequestHandler } from 'express';
import type { Gatehouse } from '../gatehouse.ts';
import type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import { startNodeGraphQL } from '../graphql/graphql-upgrades.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { requestUrl } from './web-bridge.ts';

/** An application's GraphQL API on Express. */
export interface ExpressGraphQL {
  /** Where it is served (`options.path`, `/graphql` by default). */
  readonly path: string;
  /**
   * Serves the path over HTTP — GET and POST, 405 for other methods — and lets every other request
   * go on. Works whether body parsers ran before it or not; needs no route of its own (the fields
   * carry their policies: valid credentials make the caller, invalid ones are 401).
   */
  readonly handler: RequestHandler;
  /**
   * graphql-ws on the server's upgrades at the path; `app`'s `trust proxy` tells the client's
   * address, as for its requests. An upgrade elsewhere is left to the server's other `upgrade`
   * listeners, or refused with 404 when there are none.
   */
  attach(server: Server, app: Express): void;
  /** Closes the sockets with 1001 (clients reconnect) and the schema's event source. */
  close(): Promise<void>;
}

/** The schema's endpoint on this application's Gatehouse, started (its event source too). */
export async function expressGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  gatehouse: Gatehouse,
  options: GatehouseGraphQLOptions<Context, Policy>,
): Promise<ExpressGraphQL> {
  const graphql = await startNodeGraphQL(gatehouse, options);
  return {
    path: graphql.path,
    handler: (request, response, next) => {
      if (`${request.baseUrl}${request.path}` !== graphql.path) return next();
      let url: URL;
      try {
        url = requestUrl(request);
      } catch (error) {
        return next(error);
      }
      graphql.serve(request, response, { url, ip: request.ip ?? '', ...(request.body !== undefined ? { body: request.body } : {}) }).catch(next);
    },
    attach: (server, app) => graphql.attach(server, (request) => expressAddress(request, app)),
    close: () => graphql.close(),
  };
}

/** The client's address of an upgrade as Express tells it for every request of `app`, under its `trust proxy` (its `ip` getter). */
function expressAddress(request: IncomingMessage, app: Express): string {
  const asExpress = Object.create(app.request, { app: { value: app }, headers: { value: request.headers }, socket: { value: request.socket } }) as { ip?: string };
  return asExpress.ip ?? request.socket.remoteAddress ?? '';
}
