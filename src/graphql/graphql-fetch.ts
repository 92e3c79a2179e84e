import type { EndpointResponse } from '../endpoints/endpoint.ts';
import type { FetchHandler, FetchRequestOptions } from '../endpoints/fetch-handler.ts';
import { STRICT_TRANSPORT_SECURITY } from '../endpoints/response-headers.ts';
import { bodyOf, errorResponse, rawBody, type ReceivedRequest, receivedFrom, toResponse } from '../endpoints/web-exchange.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import type { GraphQLEndpoint } from './graphql-endpoint.ts';
import { operationCallers } from './operation-caller.ts';

const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST']);
const ANONYMOUS = ClaimsPrincipal.anonymous();

/**
 * The GraphQL endpoint as a Web-standard handler, `(Request) → Response`, for hosts that speak
 * the Fetch API (Hono, Next.js route handlers) or hand it a request they bridged (Express). Each
 * request passes what GraphQL's path passes on the Fastify host, in the same order:
 *
 *   authentication   valid credentials make the caller, invalid ones are 401, none leave it anonymous
 *   cross-site       a POST the auth cookie authenticated from an untrusted origin is 403
 *   body             a raw body is read up to BODY_LIMIT_BYTES (413), JSON only (415), parsed (400)
 *   the endpoint     200, or the GraphQL error shape with 400 or 405
 *   every answer     `nosniff`, `no-store`, `Strict-Transport-Security` in production
 *
 * The host routes `endpoint.path` here and upgrades its sockets (`GraphQLEndpoint.openSocket`).
 */
export function graphqlFetchHandler(gatehouse: Gatehouse, endpoint: GraphQLEndpoint): FetchHandler {
  const { config } = gatehouseServices(gatehouse);
  const callerOf = operationCallers(gatehouse);
  const securityHeaders: Readonly<Record<string, string>> = {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...(config.production ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
  };

  const respond = async (request: Request, received: ReceivedRequest, parsed: FetchRequestOptions): Promise<EndpointResponse> => {
    // Other methods are 405 before anything is read, credentials included, as on every host.
    if (!SERVED_METHODS.has(request.method)) return endpoint.answer({ method: request.method, headers: received.headers, query: received.query, user: ANONYMOUS, credentials: received });
    const caller = await callerOf(received);
    if (caller.kind === 'refused') return caller.answer;
    let body: unknown;
    if (request.method === 'POST') {
      const read = 'body' in parsed ? { value: parsed.body } : await rawBody(bodyOf(request, parsed), config.bodyLimitBytes, false);
      if ('error' in read) return errorResponse(read.error);
      body = read.value;
    }
    const answer = await endpoint.answer({ method: request.method, headers: received.headers, query: received.query, body, user: caller.user, credentials: received });
    return caller.renewed === undefined ? answer : { ...answer, cookies: [caller.renewed] };
  };

  return async (request, options = {}) => {
    const received = receivedFrom(request, new URL(request.url), options);
    const answer = await respond(request, received, options);
    return toResponse({ ...answer, headers: { ...answer.headers, ...securityHeaders } });
  };
}
