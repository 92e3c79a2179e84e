import fastifyWebsocket, { type WebSocket } from '@fastify/websocket';
import type { LiveCount } from '../platform/metrics/live-count.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError } from 'graphql';
import { type AuthenticationHandler, type AuthenticationRequest, declaredCredentials } from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { Services } from '../services.ts';
import { authenticationSchemes, type SchemeOptions } from '../schemes/authentication-schemes.ts';
import { PROBLEM_JSON, problem } from '../security/problem-details.ts';
import type { OperationContext } from './context.ts';
import { GraphQLService } from './graphql-service.ts';
import type { IncomingRequest } from './operation-documents.ts';
import { closeSocketsGoingAway, type GraphQLSocketOptions, graphqlSocketHandler } from './graphql-socket.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
/** The anonymous-but-reading-credentials endpoint of docs/reference/graphql.md (see pipeline.ts). */
const ENDPOINT_CONFIG = { authorization: { allowAnonymous: true }, readCredentials: true };

export interface TransportOptions {
  readonly path: string;
  readonly graphql: GraphQLService;
  /** A context for one operation (or one event) of this caller, authenticated from `credentials`. */
  readonly contextFor: (caller: ClaimsPrincipal | (() => ClaimsPrincipal), credentials: AuthenticationRequest) => OperationContext;
  readonly services: Services;
  /** The schemes that are on: a socket authenticates with the same as a request. */
  readonly schemeOptions: SchemeOptions;
  /** Subscriptions a socket may hold at once. */
  readonly maxSubscriptions: number;
  /** What a socket may cost: its unsent bytes, and the sockets of one caller and of one client address. */
  readonly socketLimits: Pick<GraphQLSocketOptions, 'maxBufferBytes' | 'maxSocketsPerUser' | 'maxSocketsPerIp'>;
  /** Hears each socket open and close (the metrics' count of live sockets). */
  readonly liveSockets?: LiveCount;
}

/**
 * GraphQL at `path` over HTTP (docs/reference/graphql.md): POST for every operation but subscriptions, GET
 * for queries, and graphql-ws on the same path. Invalid credentials were refused with 401 by the
 * pipeline; anonymous callers get field errors. 400 and 405 answer in the GraphQL error shape, in
 * the media type the client accepts. A request may name its document by a persisted-query hash
 * (Apollo's protocol) instead of sending it; with trusted documents, only those run.
 */
export async function graphqlTransport(app: FastifyInstance, { path, graphql, contextFor, services, schemeOptions, maxSubscriptions, socketLimits, liveSockets }: TransportOptions): Promise<void> {
  const { config, clock, logger } = services;

  const run = async (request: FastifyRequest, reply: FastifyReply, body: IncomingRequest, allowed: readonly ('query' | 'mutation')[]) => {
    const prepared = await graphql.prepareRequest(body, allowed, { automaticPersisted: true });
    if (prepared.kind === 'refused') {
      if (prepared.status === 405) reply.header('allow', 'POST');
      return send(request, reply, prepared.status, { errors: prepared.errors });
    }
    // Schemes read the query as sent (a record of strings), which Fastify types as unknown.
    const asSent = request as FastifyRequest<{ Querystring: AuthenticationRequest['query'] }>;
    const executed = await graphql.execute(prepared, prepared.request, () => contextFor(request.user, asSent));
    // GraphQL over HTTP: a request error (variables that do not coerce) leaves no `data`, and is a
    // 400 in the new media type; application/json keeps its 200 for older clients.
    const status = responseType(request) === GRAPHQL_RESPONSE && !executed.hasData ? 400 : 200;
    return send(request, reply, status, executed.body);
  };

  // Other methods are 405 (docs/reference/http.md), answered before any body is read.
  app.route({
    method: ['PUT', 'DELETE', 'PATCH'],
    url: path,
    config: { authorization: { allowAnonymous: true } },
    onRequest: async (request, reply) =>
      send(request, reply.header('allow', 'GET, POST'), 405, { errors: [{ message: 'Send queries with GET or POST, mutations with POST.', extensions: { code: 'METHOD_NOT_ALLOWED' } }] }),
    handler: async () => undefined,
  });

  app.post(path, { config: ENDPOINT_CONFIG }, async (request, reply) => {
    const body = requestOf(request.body);
    if (typeof body === 'string') return send(request, reply, 400, badRequest(body));
    return run(request, reply, body, ['query', 'mutation']);
  });

  // The socket plugin's hooks (on every request of its scope) stay off POST: GET, the route that
  // upgrades, has a scope of its own.
  await app.register(async (scope) => {
    // Before the WebSocket plugin's own preClose, which would close the sockets without a code.
    scope.addHook('preClose', async () => closeSocketsGoingAway(scope.websocketServer.clients));
    await scope.register(fastifyWebsocket, { options: { maxPayload: config.bodyLimitBytes } });
    // The schemes of every request; a socket re-reads its cookie session without sliding it.
    const schemes = authenticationSchemes(services, services.sessions.withoutRenewal(), schemeOptions);
    const cookieSchemes = new Set(schemes.handlers.filter(readsCookies).map((handler) => handler.scheme));
    const socketHandler = graphqlSocketHandler({
      graphql,
      contextFor,
      schemes,
      revocations: services.revocations,
      keyRing: services.keyRing,
      clock,
      logger,
      maxSubscriptions,
      ...socketLimits,
    });
    const trustedOrigins = new Set([config.publicUrl.origin, ...config.corsOrigins]);

    scope.route<{ Querystring: Record<string, string | undefined> }>({
      method: 'GET',
      url: path,
      config: ENDPOINT_CONFIG,
      // A browser's socket carries the auth cookie to any site that opens it: only trusted origins may.
      preValidation: async (request, reply) => {
        if (!isUpgrade(request) || !signedInByCookie(request, cookieSchemes)) return;
        if (!trustedOrigins.has(request.headers.origin ?? '')) {
          const refusal = problem('GH_FORBIDDEN', 'This origin may not open a signed-in socket.');
          await reply.code(refusal.status).type(PROBLEM_JSON).send(JSON.stringify(refusal));
        }
      },
      wsHandler: liveSockets ? countedSockets(socketHandler, liveSockets) : socketHandler,
      handler: async (request, reply) => {
        const { query, variables, operationName, extensions } = request.query;
        let parsed: { variables: unknown; extensions: unknown };
        try {
          parsed = { variables: jsonParameter(variables), extensions: jsonParameter(extensions) };
        } catch {
          return send(request, reply, 400, badRequest('The variables and extensions parameters must be JSON.'));
        }
        const body = requestOf({ query, operationName, ...parsed });
        if (typeof body === 'string') return send(request, reply, 400, badRequest(body));
        return run(request, reply, body, ['query']);
      },
    });
  });
}

/** `handler`, with each socket told to `live` as it opens and as it closes. */
function countedSockets(handler: (socket: WebSocket, request: FastifyRequest) => void, live: LiveCount): (socket: WebSocket, request: FastifyRequest) => void {
  return (socket, request) => {
    live.opened();
    socket.once('close', () => live.closed());
    handler(socket, request);
  };
}

function isUpgrade(request: FastifyRequest): boolean {
  return request.headers.upgrade?.toLowerCase() === 'websocket';
}

/** Whether a scheme that reads cookies (Cookies, or one of the application's) authenticated the caller. */
function signedInByCookie(request: FastifyRequest, cookieSchemes: ReadonlySet<string>): boolean {
  return request.user.identities.some((identity) => identity.isAuthenticated && cookieSchemes.has(identity.authenticationType ?? ''));
}

/** A scheme whose credential a browser sends on its own to any site that opens a socket: a cookie. */
function readsCookies(handler: AuthenticationHandler): boolean {
  const { cookies, headers } = declaredCredentials(handler);
  return (cookies !== undefined && cookies.length > 0) || (headers?.includes('cookie') ?? false);
}

/**
 * A request body as docs/reference/graphql.md takes it, or why not (a string). Batches are refused.
 * The query may be left out when `extensions.persistedQuery` names the document.
 */
function requestOf(body: unknown): IncomingRequest | string {
  if (Array.isArray(body)) return 'Batched operations are not accepted: send one operation per request.';
  if (typeof body !== 'object' || body === null) return 'The body must be a JSON object with a query.';
  const { query, variables, operationName, extensions } = body as Record<string, unknown>;
  if (query !== undefined && query !== null && typeof query !== 'string') return 'query must be a string.';
  if (!isObjectOrAbsent(variables)) return 'variables must be an object.';
  if (!isObjectOrAbsent(extensions)) return 'extensions must be an object.';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return 'operationName must be a string.';
  return {
    ...(typeof query === 'string' ? { query } : {}),
    ...(variables ? { variables: variables as Record<string, unknown> } : {}),
    ...(typeof operationName === 'string' ? { operationName } : {}),
    ...(extensions ? { extensions: extensions as Record<string, unknown> } : {}),
  };
}

/** A member that, when given, must be a JSON object (null counts as not given). */
function isObjectOrAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value));
}

/** A GET parameter holding JSON, or undefined when absent or empty; throws when it is not JSON. */
function jsonParameter(value: string | undefined): unknown {
  return value === undefined || value === '' ? undefined : JSON.parse(value);
}

function badRequest(message: string): { errors: GraphQLFormattedError[] } {
  return { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
}

/**
 * `application/graphql-response+json` when the client accepts it, else `application/json`. The
 * payload is sent as JSON text (an executed result comes serialized already).
 */
function send(request: FastifyRequest, reply: FastifyReply, status: number, payload: string | Buffer | object): FastifyReply {
  const type = responseType(request);
  return reply.code(status).header('content-type', `${type}; charset=utf-8`).send(typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload));
}

/** The media type of the answer: `application/graphql-response+json` when the client accepts it. */
function responseType(request: FastifyRequest): typeof GRAPHQL_RESPONSE | 'application/json' {
  return (request.headers.accept ?? '').includes(GRAPHQL_RESPONSE) ? GRAPHQL_RESPONSE : 'application/json';
}
