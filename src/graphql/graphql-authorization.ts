/**
 * Gatehouse's GraphQL rules on a server of the application's choosing — Apollo Server, GraphQL
 * Yoga, graphql-http, `@nestjs/graphql` — which parses, validates and executes on its own:
 *
 *   const gql = graphqlAuthorization(gatehouse);
 *   const schema = gql.authorize(makeExecutableSchema({ typeDefs: [authorizeDirective, typeDefs], resolvers }));
 *   const apollo = new ApolloServer({ schema });
 *   app.use('/graphql', expressMiddleware(apollo, { context: ({ req }) => gql.context(req) }));
 *   useServer({ schema, ...gql.socketOptions() }, new WebSocketServer({ server, path: '/graphql' }));
 *
 * The fields' `@authorize` rules, the context's `user` and `authorize`, the caller of a request
 * and of a socket are Gatehouse's own; the document limits, persisted documents and result cache
 * of `gatehouseGraphQL` are not (the server's own apply).
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import { refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import { clientAddress, receivedFromNode } from '../endpoints/node-request.ts';
import { type ReceivedRequest, receivedFrom } from '../endpoints/web-exchange.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import type { PolicyProvider } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { Authorizer, type ContextBuilder, contextFactory, type GraphQLContext, portableContext } from './context.ts';
import { operationCallers } from './operation-caller.ts';
import { type SocketExtra, type SocketLimits, socketOptions } from './socket-options.ts';

/**
 * A request as GraphQL servers hand it to their context function: a Web `Request` (Yoga,
 * graphql-http's fetch handler, Next.js), Node's `IncomingMessage` (Apollo's standalone server
 * and Express integration, Express's `req`), or a request with either behind it as `raw`
 * (Fastify's, Mercurius's, graphql-http's).
 */
export type GraphQLServerRequest = Request | IncomingMessage | { readonly raw: IncomingMessage | Request };

/** An HTTP answer refusing the request, in place of running its operation. */
export interface GraphQLRefusal {
  readonly status: number;
  /** The status's reason phrase (`Unauthorized`). */
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The problem+json body. */
  readonly body: string;
}

export interface GraphQLAuthorizationOptions<Context extends object = object, Policy extends string = PolicyName> {
  /** What the application adds to each operation's context (its loaders…); getters stay lazy. */
  readonly context?: ContextBuilder<Policy, Context>;
}

/** Gatehouse's rules for an application's GraphQL server. */
export interface GraphQLAuthorization<Context extends object = object, Policy extends string = PolicyName> {
  /**
   * Puts the schema's `@authorize` rules (and `authorize` extensions) in force, and returns it:
   * each field under a rule resolves only for callers that meet it, a subscription field is
   * checked when subscribed to and again for each event. Throws for a rule naming an unknown policy.
   */
  authorize<Schema extends GraphQLSchema>(schema: Schema): Schema;
  /**
   * The context of one operation over HTTP: its caller as docs/reference/graphql.md says (valid
   * credentials make the caller, none leave it anonymous). Rejects, for a request to refuse
   * (invalid credentials: 401; the auth cookie from an untrusted origin: 403), with a
   * `GraphQLError` carrying `extensions.http` (its status and headers), which Apollo Server and
   * GraphQL Yoga answer with. `ip` is the client's address when the request is a Web `Request`.
   */
  context(request: GraphQLServerRequest, options?: { readonly ip?: string }): Promise<GraphQLContext<Policy> & Context>;
  /** As `context`, but the refusal as an HTTP answer to send (graphql-http's context may return one as `[body, init]`). */
  operation(request: GraphQLServerRequest, options?: { readonly ip?: string }): Promise<{ readonly context: GraphQLContext<Policy> & Context } | { readonly refusal: GraphQLRefusal }>;
  /**
   * Options for graphql-ws's `useServer(options, webSocketServer)` — spread the application's
   * own (`schema`, `execute`…) beside them: each socket is authenticated from its upgrade and
   * `connection_init`, closed with 4403 when its credential ends or is revoked, and its
   * operations run with a context whose `user` is the credential's current principal.
   */
  socketOptions(limits?: SocketLimits): ServerOptions<Record<string, unknown> | undefined, SocketExtra>;
}

/** Gatehouse's GraphQL rules on `gatehouse`, for a GraphQL server the application runs. */
export function graphqlAuthorization<Context extends object = object, Policy extends string = PolicyName>(
  gatehouse: Gatehouse,
  options: GraphQLAuthorizationOptions<Context, Policy> = {},
): GraphQLAuthorization<Context, Policy> {
  refuseNonObject('graphqlAuthorization', options);
  refuseUnknownOptions('graphqlAuthorization', options, { context: true });
  if (options.context !== undefined && typeof options.context !== 'function') throw new Error('graphqlAuthorization: context must be a function that returns an object.');
  const { config } = gatehouseServices(gatehouse);
  const authorizer = new Authorizer(gatehouse.authorization, gatehouse.policies as PolicyProvider<Policy>, gatehouse.evaluator);
  const contextFor = contextFactory(authorizer, options.context);
  const callerOf = operationCallers(gatehouse);
  const nodeAddress = clientAddress(config.trustProxy);

  const operation: GraphQLAuthorization<Context, Policy>['operation'] = async (request, { ip } = {}) => {
    const received = receivedOf(request, nodeAddress, ip);
    const caller = await callerOf(received);
    if (caller.kind === 'refused') {
      const { status, headers = {}, body } = caller.answer;
      return { refusal: { status, statusText: STATUS_CODES[status] ?? '', headers, body: typeof body === 'string' ? body : JSON.stringify(body ?? {}) } };
    }
    return { context: portableContext(contextFor(caller.user, received)) };
  };

  return {
    authorize: (schema) => {
      authorizer.applyTo(schema, 'graphqlAuthorization');
      return schema;
    },
    operation,
    context: async (request, requestOptions) => {
      const operated = await operation(request, requestOptions);
      if ('context' in operated) return operated.context;
      throw refusalError(operated.refusal);
    },
    socketOptions: (limits = {}) => socketOptions(gatehouse, (caller, credentials) => portableContext(contextFor(caller, credentials)), limits),
  };
}

/** The request as schemes read it, whichever form the server hands over. */
function receivedOf(request: GraphQLServerRequest, nodeAddress: (request: IncomingMessage) => string, ip: string | undefined): ReceivedRequest {
  const inner = 'raw' in request ? request.raw : request;
  if (isWebRequest(inner)) return receivedFrom(inner, new URL(inner.url), ip === undefined ? {} : { ip });
  const node = inner;
  // Express rewrites `url` under a mounted router; the target as sent is its `originalUrl`.
  const target = (node as { originalUrl?: string }).originalUrl ?? node.url ?? '/';
  return receivedFromNode(node, target, ip ?? nodeAddress(node));
}

/** A Fetch API request, whichever implementation made it (servers may bring their own `Request` class). */
function isWebRequest(request: IncomingMessage | Request): request is Request {
  return typeof (request as { headers?: { get?: unknown } }).headers?.get === 'function';
}

/** The refusal as the error a context function throws: its problem's title, code and HTTP answer. */
function refusalError(refusal: GraphQLRefusal): GraphQLError {
  const problem = JSON.parse(refusal.body) as { title?: string; detail?: string; code?: string };
  const code = refusal.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN';
  return new GraphQLError(problem.detail ?? problem.title ?? 'Refused.', {
    extensions: { code, ...(problem.code ? { reason: problem.code } : {}), http: { status: refusal.status, headers: serverHeaders(refusal.headers) } },
  });
}

/**
 * The refusal's headers (its challenge) as both servers read `extensions.http.headers`: Apollo
 * Server takes only a `Map`, Yoga copies an object's own properties; a `Map` with the same entries
 * as own properties is both. Not its content type: the server writes its own body.
 */
function serverHeaders(headers: Readonly<Record<string, string>>): Map<string, string> & Record<string, string> {
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
  return Object.assign(new Map(Object.entries(kept)), kept);
}
