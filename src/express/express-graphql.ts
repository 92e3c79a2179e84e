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
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse as parseCookies } from 'cookie';
import type { Express, RequestHandler } from 'express';
import { WebSocketServer } from 'ws';
import { endpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import { refusalResponse } from '../endpoints/refusal-response.ts';
import { repeatedAuthorization } from '../endpoints/repeated-authorization.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { createGraphQLEndpoint } from '../graphql/graphql-endpoint.ts';
import { graphqlFetchHandler } from '../graphql/graphql-fetch.ts';
import { checkGraphQLOptions, type GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { webRequest, writeWebResponse } from './web-bridge.ts';

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
  checkGraphQLOptions(options);
  const endpoint = createGraphQLEndpoint(gatehouse, options);
  const answer = graphqlFetchHandler(gatehouse, endpoint);
  const { config, verdicts } = gatehouseServices(gatehouse);
  const { authorize, recognize } = endpointAuthorization(
    { policies: gatehouse.policies, evaluator: gatehouse.evaluator, verdicts },
    { authorization: { allowAnonymous: true }, readCredentials: true },
  );
  const sockets = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes });
  await endpoint.start();

  /** The upgrade's caller, as the same request would be over HTTP; its refusal written to the socket. */
  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer, app: Express) => {
    const received = upgradeRequest(request, app);
    const { principal, outcome } = recognize?.(received) ?? (await authorize!(received));
    const refusal = outcome.kind !== 'success' ? refusalResponse(outcome, received) : endpoint.upgradeRefusal(principal, request.headers);
    if (refusal !== null) return refuseUpgrade(socket, refusal);
    sockets.handleUpgrade(request, socket, head, (webSocket) => endpoint.openSocket(webSocket, received));
  };

  return {
    path: endpoint.path,
    handler: (request, response, next) => {
      if (`${request.baseUrl}${request.path}` !== endpoint.path) return next();
      answer(webRequest(request), { ip: request.ip ?? '', ...(request.body !== undefined ? { body: request.body } : {}) })
        .then((answered) => writeWebResponse(response, answered))
        .catch(next);
    },
    attach: (server, app) => {
      server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (new URL(request.url ?? '/', 'http://localhost').pathname !== endpoint.path) {
          // Another listener's (an application's own sockets), or nobody's.
          if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, { status: 404 });
          return;
        }
        upgrade(request, socket, head, app).catch((error: unknown) => {
          gatehouseServices(gatehouse).logger.error({ err: error }, 'GraphQL socket upgrade failed');
          refuseUpgrade(socket, { status: 500 });
        });
      });
    },
    close: async () => {
      endpoint.closeSockets(sockets.clients);
      await endpoint.close();
    },
  };
}

/** The upgrade as schemes read it; the client's address as Express tells it under `app`'s `trust proxy`. */
function upgradeRequest(request: IncomingMessage, app: Express): Required<AuthenticationRequest> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const query = Object.create(null) as Record<string, string | string[]>;
  url.searchParams.forEach((value, name) => {
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [earlier, value].flat();
  });
  // Express's own request prototype reads the address (its `ip` getter), as for every request of `app`.
  const asExpress = Object.create(app.request, { app: { value: app }, headers: { value: request.headers }, socket: { value: request.socket } }) as { ip?: string };
  const cookie = request.headers.cookie;
  const repeated = request.headers.authorization === undefined ? undefined : repeatedAuthorization(request.rawHeaders);
  return {
    headers: repeated === undefined ? request.headers : { ...request.headers, authorization: repeated },
    cookies: cookie === undefined ? {} : parseCookies(cookie),
    ip: asExpress.ip ?? request.socket.remoteAddress ?? '',
    method: 'GET',
    url: request.url ?? '/',
    query,
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
