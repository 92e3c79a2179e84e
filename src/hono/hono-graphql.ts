/**
 * GraphQL on Hono: the GraphQL endpoint's HTTP answers are the Web-standard handler's, its sockets
 * the Node server's upgrades (on `@hono/node-server`).
 *
 *   const graphql = await auth.graphql({ typeDefs, resolvers });
 *   app.use(graphql.handler);
 *   const server = auth.createServer(app);
 *   graphql.attach(server);
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Context as HonoContext, MiddlewareHandler } from 'hono';
import type { FetchRequestOptions } from '../endpoints/fetch-handler.ts';
import type { Gatehouse } from '../gatehouse.ts';
import type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import { startNodeGraphQL } from '../graphql/graphql-upgrades.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** An application's GraphQL API on Hono. */
export interface HonoGraphQL {
  /** Where it is served (`options.path`, `/graphql` by default). */
  readonly path: string;
  /**
   * Serves the path over HTTP — GET and POST, 405 for other methods — and lets every other request
   * go on; needs no route of its own (the fields carry their policies: valid credentials make the
   * caller, invalid ones are 401).
   */
  readonly handler: MiddlewareHandler;
  /** graphql-ws on the Node server's upgrades at the path, the client's address read as for its requests. */
  attach(server: Server): void;
  /** Closes the sockets with 1001 (clients reconnect) and the schema's event source. */
  close(): Promise<void>;
}

/** The schema's endpoint on this application's Gatehouse, started (its event source too). */
export async function honoGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  gatehouse: Gatehouse,
  options: GatehouseGraphQLOptions<Context, Policy>,
  /** What the handler is told beside the request: the caller's address, Node's request on Node. */
  requestOptions: (c: HonoContext) => FetchRequestOptions,
  upgradeAddress: (request: IncomingMessage) => string,
): Promise<HonoGraphQL> {
  const graphql = await startNodeGraphQL(gatehouse, options);
  return {
    path: graphql.path,
    handler: async (c, next) => (c.req.path === graphql.path ? graphql.answer(c.req.raw, requestOptions(c)) : next()),
    attach: (server) => graphql.attach(server, upgradeAddress),
    close: () => graphql.close(),
  };
}
