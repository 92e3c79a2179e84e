import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import type { FetchHandler, FetchRequestOptions } from '../endpoints/fetch-handler.ts';
import { writeEndpointResponse, writeNodeResponse } from '../endpoints/node-response.ts';
import { nodeBody, receivedFromNode } from '../endpoints/node-request.ts';
import { STRICT_TRANSPORT_SECURITY } from '../endpoints/response-headers.ts';
import { type BodySource, bodyOf, errorResponse, rawBody, type ReceivedRequest, receivedFrom, toResponse } from '../endpoints/web-exchange.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import type { GraphQLEndpoint } from './graphql-endpoint.ts';
import { operationCallers } from './operation-caller.ts';

const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST']);
const ANONYMOUS = ClaimsPrincipal.anonymous();

/**
 * The GraphQL endpoint's HTTP answers, for hosts that speak the Fetch API (Hono, Next.js route
 * handlers) and hosts on Node's own request and response (Express, NestJS). Each request passes
 * what GraphQL's path passes on the Fastify host, in the same order:
 *
 *   authentication   valid credentials make the caller, invalid ones are 401, none leave it anonymous
 *   cross-site       a POST the auth cookie authenticated from an untrusted origin is 403
 *   body             a raw body is read up to BODY_LIMIT_BYTES (413), JSON only (415), parsed (400)
 *   the endpoint     200, or the GraphQL error shape with 400 or 405
 *   every answer     `nosniff`, `no-store`, `Strict-Transport-Security` in production
 *
 * The host routes `endpoint.path` here and upgrades its sockets (`GraphQLEndpoint.openSocket`).
 */
export interface GraphQLHttpHandlers {
  /** `(Request) → Response`. */
  readonly fetch: FetchHandler;
  /**
   * The same answer written to Node's response, read from Node's request, without a Web `Request`
   * or `Response` in between: what a host on Node serves (building both is most of what a small
   * query costs there). `url` is the request's URL as the host resolves it.
   */
  readonly node: NodeGraphQLHandler;
}

export type NodeGraphQLHandler = (request: IncomingMessage, response: ServerResponse, options: NodeGraphQLOptions) => Promise<void>;

export interface NodeGraphQLOptions {
  readonly url: URL;
  /** The caller's address. */
  readonly ip: string;
  /** The body a parser of the host read already (Express's `express.json()`), instead of Node's stream. */
  readonly body?: unknown;
}

/** The GraphQL endpoint as a Web-standard handler, `(Request) → Response`. */
export function graphqlFetchHandler(gatehouse: Gatehouse, endpoint: GraphQLEndpoint): FetchHandler {
  return graphqlHttpHandlers(gatehouse, endpoint).fetch;
}

export function graphqlHttpHandlers(gatehouse: Gatehouse, endpoint: GraphQLEndpoint): GraphQLHttpHandlers {
  const { config } = gatehouseServices(gatehouse);
  const callerOf = operationCallers(gatehouse);
  const securityHeaders: Readonly<Record<string, string>> = {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...(config.production ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
  };

  /** `parsed`: the body a host's parser read, when it did (`'body' in parsed`); otherwise `source` is read. */
  const respond = async (method: string, received: ReceivedRequest, source: () => BodySource, parsed: { readonly body?: unknown }): Promise<EndpointResponse> => {
    // Other methods are 405 before anything is read, credentials included, as on every host.
    if (!SERVED_METHODS.has(method)) return endpoint.answer({ method, headers: received.headers, query: received.query, user: ANONYMOUS, credentials: received });
    const caller = await callerOf(received);
    if (caller.kind === 'refused') return caller.answer;
    let body: unknown;
    if (method === 'POST') {
      const read = 'body' in parsed ? { value: parsed.body } : await rawBody(source(), config.bodyLimitBytes, false);
      if ('error' in read) return errorResponse(read.error);
      body = read.value;
    }
    const answer = await endpoint.answer({ method, headers: received.headers, query: received.query, body, user: caller.user, credentials: received });
    return caller.renewed === undefined ? answer : { ...answer, cookies: [caller.renewed] };
  };
  const secured = (answer: EndpointResponse): EndpointResponse => ({ ...answer, headers: { ...answer.headers, ...securityHeaders } });

  const fetch: FetchHandler = async (request, options = {}) => {
    const received = receivedFrom(request, new URL(request.url), options);
    return toResponse(secured(await respond(request.method, received, () => bodyOf(request, options), options)));
  };

  return {
    fetch,
    node: async (request, response, options) => {
      const method = request.method ?? 'GET';
      // What a Web `Request` would refuse or rewrite (an unusual method, a URL with credentials) goes as it did through one.
      if (!PLAIN_METHODS.has(method) || options.url.username !== '' || options.url.password !== '') {
        const web = new Request(options.url, { method });
        return writeNodeResponse(response, await fetch(web, { ip: options.ip, node: request, ...('body' in options ? { body: options.body } : {}) }));
      }
      const received = receivedFromNode(request, `${options.url.pathname}${options.url.search}`, options.ip);
      writeEndpointResponse(response, secured(await respond(method, received, () => nodeBody(request), options)));
    },
  };
}

/** Methods a Web `Request` keeps as they are. */
const PLAIN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
