/**
 * The GraphQL endpoint's sockets on a Node server's upgrades, for every host that runs on one
 * (Express, Hono on `@hono/node-server`): each upgrade at the path is authenticated as the same
 * request over HTTP would be, refused with an HTTP answer, or handed to the endpoint.
 */
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { endpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import { receivedFromNode } from '../endpoints/node-request.ts';
import { refusalResponse } from '../endpoints/refusal-response.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { createGraphQLEndpoint, type GraphQLEndpoint } from './graphql-endpoint.ts';
import { graphqlHttpHandlers, type NodeGraphQLHandler } from './graphql-fetch.ts';
import { checkGraphQLOptions, type GatehouseGraphQLOptions } from './graphql-options.ts';
import type { FetchHandler } from '../endpoints/fetch-handler.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

export interface GraphQLUpgrades {
  /**
   * graphql-ws on the server's upgrades at the endpoint's path. An upgrade elsewhere is left to
   * the server's other `upgrade` listeners, or refused with 404 when there are none.
   */
  attach(server: Server): void;
  /** Closes the sockets with 1001 (clients reconnect). */
  closeSockets(): void;
}

/** `clientAddress` tells the caller's address of an upgrade, as the host does for its requests. */
export function graphqlUpgrades(gatehouse: Gatehouse, endpoint: GraphQLEndpoint, clientAddress: (request: IncomingMessage) => string): GraphQLUpgrades {
  const { config, verdicts, logger } = gatehouseServices(gatehouse);
  const { authorize, recognize } = endpointAuthorization(
    { policies: gatehouse.policies, evaluator: gatehouse.evaluator, verdicts },
    { authorization: { allowAnonymous: true }, readCredentials: true },
  );
  const sockets = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes });

  /** The upgrade's caller, as the same request would be over HTTP; its refusal written to the socket. */
  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const received = receivedFromNode(request, request.url ?? '/', clientAddress(request));
    const { principal, outcome } = recognize?.(received) ?? (await authorize!(received));
    const refusal = outcome.kind !== 'success' ? refusalResponse(outcome, received) : endpoint.upgradeRefusal(principal, request.headers);
    if (refusal !== null) return refuseUpgrade(socket, refusal);
    sockets.handleUpgrade(request, socket, head, (webSocket) => endpoint.openSocket(webSocket, received));
  };

  return {
    attach: (server) => {
      server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (new URL(request.url ?? '/', 'http://localhost').pathname !== endpoint.path) {
          // Another listener's (an application's own sockets), or nobody's.
          if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, { status: 404 });
          return;
        }
        upgrade(request, socket, head).catch((error: unknown) => {
          logger.error({ err: error }, 'GraphQL socket upgrade failed');
          refuseUpgrade(socket, { status: 500 });
        });
      });
    },
    closeSockets: () => endpoint.closeSockets(sockets.clients),
  };
}

/** An application's GraphQL endpoint on a Node server: its HTTP answers, its sockets. */
export interface NodeGraphQL {
  readonly path: string;
  /** The Web-standard handler of the path's HTTP requests (graphql-fetch.ts). */
  readonly answer: FetchHandler;
  /** The same answers read from Node's request and written to Node's response (graphql-fetch.ts). */
  readonly serve: NodeGraphQLHandler;
  /** graphql-ws on the server's upgrades at the path; `clientAddress` tells an upgrade's caller address as the host does for its requests. */
  attach(server: Server, clientAddress: (request: IncomingMessage) => string): void;
  /** Closes the sockets with 1001 (clients reconnect) and the schema's event source. */
  close(): Promise<void>;
}

/** The schema's endpoint on `gatehouse` for a host on a Node server, started (its event source too). */
export async function startNodeGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  gatehouse: Gatehouse,
  options: GatehouseGraphQLOptions<Context, Policy>,
): Promise<NodeGraphQL> {
  checkGraphQLOptions(options);
  const endpoint = createGraphQLEndpoint(gatehouse, options);
  let upgrades: GraphQLUpgrades | undefined;
  await endpoint.start();
  const handlers = graphqlHttpHandlers(gatehouse, endpoint);
  return {
    path: endpoint.path,
    answer: handlers.fetch,
    serve: handlers.node,
    attach: (server, clientAddress) => {
      upgrades = graphqlUpgrades(gatehouse, endpoint, clientAddress);
      upgrades.attach(server);
    },
    close: async () => {
      upgrades?.closeSockets();
      await endpoint.close();
    },
  };
}

/** An HTTP answer in place of the upgrade, then the socket closed. */
function refuseUpgrade(socket: Duplex, answer: EndpointResponse): void {
  const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  const headers: Record<string, string> = {
    ...answer.headers,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    connection: 'close',
    'content-length': String(Buffer.byteLength(body)),
  };
  if (body !== '' && headers['content-type'] === undefined) headers['content-type'] = 'application/json; charset=utf-8';
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
}
