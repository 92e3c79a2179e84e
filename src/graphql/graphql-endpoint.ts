import type { GraphQLFormattedError } from 'graphql';
import type { WebSocket } from 'ws';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { authenticationSchemes } from '../schemes/authentication-schemes.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import type { PolicyProvider } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import { problem } from '../security/problem-details.ts';
import { Authorizer, contextFactory, type OperationContext } from './context.ts';
import type { GatehouseGraphQLOptions } from './graphql-options.ts';
import { GraphQLService } from './graphql-service.ts';
import { closeSocketsGoingAway, graphqlSocketHandler } from './graphql-socket.ts';
import { cookieSignIns } from './socket-caller.ts';
import type { IncomingRequest } from './operation-documents.ts';
import { OperationDocuments } from './operation-documents.ts';
import { PersistedQueries } from './persisted-queries.ts';
import { checkTrustedDocuments, schemaOf, trustedDocumentsOf } from './schema-options.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** One HTTP request at the GraphQL path, as a host hands it over once the pipeline has decided its caller. */
export interface GraphQLHttpRequest {
  readonly method: string;
  /** Header values by lower-case name, as Node delivers them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** GET's parameters as sent (a repeated one is an array). */
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
  /** POST's body, parsed from JSON by the host (undefined for none). */
  readonly body?: unknown;
  /** The caller the pipeline authenticated (anonymous when the request carried no credential). */
  readonly user: ClaimsPrincipal;
  /** The request as schemes read it: a field's check challenges an anonymous caller from it. */
  readonly credentials: AuthenticationRequest;
}

/**
 * GraphQL at one path, for any host (docs/reference/graphql.md): `answer` serves POST (every
 * operation but subscriptions), GET (queries) and refuses other methods with 405; `openSocket`
 * speaks graphql-transport-ws on a socket the host upgraded at the path, with the live-connection
 * rules (authentication at `connection_init`, re-authentication at the credential's end and at
 * revocations, claims changes, the per-socket limits).
 */
export interface GraphQLEndpoint {
  /** Where the host serves it. */
  readonly path: string;
  /** The answer to one HTTP request at `path`: 200, or the GraphQL error shape with 400 or 405. */
  answer(request: GraphQLHttpRequest): Promise<EndpointResponse>;
  /**
   * Whether an upgrade may open a socket: a browser sends the auth cookie to any site that opens
   * one, so a caller the cookie signed in must come from a trusted origin (403 otherwise); null
   * when it may.
   */
  upgradeRefusal(user: ClaimsPrincipal, headers: Readonly<Record<string, string | string[] | undefined>>): EndpointResponse | null;
  /** graphql-transport-ws on `socket`, upgraded from `upgrade` (its credential headers, method, target, query and address). */
  openSocket(socket: WebSocket, upgrade: AuthenticationRequest): void;
  /** Closes these sockets with 1001 as the server shuts down: clients reconnect (to another instance). */
  closeSockets(sockets: Iterable<WebSocket>): void;
  /** Starts the schema's event source, when the options gave one. */
  start(): Promise<void>;
  /** Closes the schema's event source. */
  close(): Promise<void>;
}

/**
 * The GraphQL endpoint of an application's schema on `gatehouse`: its `@authorize` rules checked
 * by the same policies as HTTP (a rule naming an unknown policy fails here, not at a request), the
 * document limits, the result cache, persisted and trusted documents of the options or settings.
 */
export function createGraphQLEndpoint<Context extends object = object, Policy extends string = PolicyName>(
  gatehouse: Gatehouse,
  options: GatehouseGraphQLOptions<Context, Policy>,
): GraphQLEndpoint {
  const { authorization, evaluator, policies, schemes: schemeOptions, metrics } = gatehouse;
  const services = gatehouseServices(gatehouse);
  const { config, clock, logger } = services;
  const path = options.path ?? '/graphql';
  const schema = schemaOf(options);
  const trusted = trustedDocumentsOf(options.trustedDocuments, config.graphqlTrustedDocuments);
  // The application names its policies (Policy); the provider checks each name it is asked for.
  const authorizer = new Authorizer(authorization, policies as PolicyProvider<Policy>, evaluator);
  authorizer.applyTo(schema, 'gatehouseGraphQL');
  const graphql = new GraphQLService({
    schema,
    limits: {
      maxDepth: options.limits?.maxDepth ?? config.graphqlMaxDepth,
      maxAliases: options.limits?.maxAliases ?? config.graphqlMaxAliases,
      maxCost: options.limits?.maxCost ?? config.graphqlMaxCost,
      ...(options.limits?.maxMerges !== undefined ? { maxMerges: options.limits.maxMerges } : {}),
    },
    introspection: options.introspection ?? !config.production,
    suggestions: options.suggestions ?? !config.production,
    logger,
    dataVersion: options.dataVersion ?? null,
    ...(metrics ? { liveSubscriptions: metrics.graphqlSubscriptions } : {}),
    documents: new OperationDocuments({
      persisted: options.persistedQueries === false ? null : new PersistedQueries(services.redis),
      trusted: trusted ?? null,
    }),
  });
  if (trusted) checkTrustedDocuments(graphql, trusted, options.trustedDocuments === undefined ? 'GRAPHQL_TRUSTED_DOCUMENTS' : 'trustedDocuments');
  const contextFor = contextFactory(authorizer, options.context);

  // The schemes of every request; a socket re-reads its cookie session without sliding it.
  const schemes = authenticationSchemes(services, services.sessions.withoutRenewal(), schemeOptions);
  const signedInByCookie = cookieSignIns(schemes);
  const socketHandler = graphqlSocketHandler({
    graphql,
    contextFor,
    schemes,
    revocations: services.revocations,
    keyRing: services.keyRing,
    clock,
    logger,
    maxSubscriptions: options.maxSubscriptionsPerSocket ?? config.graphqlMaxSubscriptionsPerSocket,
    maxBufferBytes: options.maxSocketBufferBytes ?? config.graphqlMaxSocketBufferBytes,
    maxSocketsPerUser: options.maxSocketsPerUser ?? config.graphqlMaxSocketsPerUser,
    maxSocketsPerIp: options.maxSocketsPerIp ?? config.graphqlMaxSocketsPerIp,
  });
  const liveSockets = metrics?.graphqlSockets;
  const trustedOrigins = new Set([config.publicUrl.origin, ...config.corsOrigins]);

  const run = async (request: GraphQLHttpRequest, incoming: IncomingRequest, allowed: readonly ('query' | 'mutation')[]): Promise<EndpointResponse> => {
    const prepared = await graphql.prepareRequest(incoming, allowed, { automaticPersisted: true });
    if (prepared.kind === 'refused') {
      return answerOf(request, prepared.status, { errors: prepared.errors }, prepared.status === 405 ? { allow: 'POST' } : {});
    }
    const executed = await graphql.execute(prepared, prepared.request, () => contextFor(request.user, request.credentials));
    // GraphQL over HTTP: a request error (variables that do not coerce) leaves no `data`, and is a
    // 400 in the new media type; application/json keeps its 200 for older clients.
    const status = responseType(request) === GRAPHQL_RESPONSE && !executed.hasData ? 400 : 200;
    return answerOf(request, status, executed.body);
  };

  return {
    path,
    answer: async (request) => {
      if (request.method === 'POST') {
        const body = requestOf(request.body);
        return typeof body === 'string' ? answerOf(request, 400, badRequest(body)) : run(request, body, ['query', 'mutation']);
      }
      if (request.method === 'GET' || request.method === 'HEAD') {
        const { query, variables, operationName, extensions } = request.query;
        let parsed: { variables: unknown; extensions: unknown };
        try {
          parsed = { variables: jsonParameter(variables), extensions: jsonParameter(extensions) };
        } catch {
          return answerOf(request, 400, badRequest('The variables and extensions parameters must be JSON.'));
        }
        const body = requestOf({ query, operationName, ...parsed });
        return typeof body === 'string' ? answerOf(request, 400, badRequest(body)) : run(request, body, ['query']);
      }
      return answerOf(request, 405, { errors: [{ message: 'Send queries with GET or POST, mutations with POST.', extensions: { code: 'METHOD_NOT_ALLOWED' } }] }, { allow: 'GET, POST' });
    },
    upgradeRefusal: (user, headers) => {
      const origin = headers.origin;
      if (!signedInByCookie(user) || (typeof origin === 'string' && trustedOrigins.has(origin))) return null;
      const refusal = problem('GH_FORBIDDEN', (m) => m.problemSocketOriginRefused);
      return { status: refusal.status, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify(refusal) };
    },
    openSocket: (socket, upgrade) => {
      if (liveSockets !== undefined) {
        liveSockets.opened();
        socket.once('close', () => liveSockets.closed());
      }
      socketHandler(socket, upgrade);
    },
    closeSockets: closeSocketsGoingAway,
    start: async () => options.events?.start(),
    close: async () => options.events?.close(),
  };
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

/** A GET parameter holding JSON, or undefined when absent or empty; throws when it is not JSON (or repeated). */
function jsonParameter(value: string | string[] | undefined): unknown {
  if (Array.isArray(value)) throw new Error('repeated');
  return value === undefined || value === '' ? undefined : JSON.parse(value);
}

function badRequest(message: string): { errors: GraphQLFormattedError[] } {
  return { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
}

/**
 * The answer in `application/graphql-response+json` when the client accepts it, else
 * `application/json`; the payload as JSON text (an executed result comes serialized already).
 */
function answerOf(request: GraphQLHttpRequest, status: number, payload: string | Buffer | object, headers: Record<string, string> = {}): EndpointResponse {
  return {
    status,
    headers: { ...headers, 'content-type': `${responseType(request)}; charset=utf-8` },
    body: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  };
}

/** The media type of the answer: `application/graphql-response+json` when the client accepts it. */
function responseType(request: GraphQLHttpRequest): typeof GRAPHQL_RESPONSE | 'application/json' {
  const accept = request.headers.accept;
  return (typeof accept === 'string' ? accept : (accept?.join(',') ?? '')).includes(GRAPHQL_RESPONSE) ? GRAPHQL_RESPONSE : 'application/json';
}
