/**
 * Gatehouse on Hono: the same instance as on Fastify and Express, served by Hono middleware over
 * the Web-standard request path (endpoints/fetch-handler.ts).
 *
 *   const auth = await gatehouse({ settings, policies, handlers });
 *   const app = new Hono<GatehouseEnv>();
 *   app.use(auth.metrics);            // first: times every request; `/metrics` when METRICS is on
 *   app.use(auth.endpoints);          // Gatehouse's own: sign-in, tokens, account, pages, admin
 *   app.use(auth.middleware);         // before the application's routes
 *   app.get('/reports', auth.authorize({ policy: 'PremiumOnly' }), (c) => c.json(…));
 *   app.notFound(auth.notFound);
 *   app.onError(auth.onError);        // a refused resource check answers 401 or 403
 *
 * A request is decided at the route that answers it (route-protection.ts): the route's own
 * `authorize(…)` or `allowAnonymous()`, the groups that match it, else the fallback policy,
 * combined as on every host (endpoints/authorize-endpoint.ts). A request no route answers stays
 * anonymous and gets Hono's 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { serialize as serializeCookie } from 'cookie';
import type { Context, Env, ErrorHandler, MiddlewareHandler, NotFoundHandler } from 'hono';
import type { RouterRoute } from 'hono/types';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import { endpointAuthorization, type ResolvedEndpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import { clientErrorHandler, clientErrorProblem, requestTimeouts } from '../endpoints/client-errors.ts';
import { cookieSessionCheck, trustedOrigins } from '../endpoints/cookie-session-check.ts';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import { knownErrorAnswer } from '../endpoints/error-answers.ts';
import { clientAddress, receivedFromNode } from '../endpoints/node-request.ts';
import { INVALID_URL, validPercentEncoding } from '../endpoints/percent-encoding.ts';
import { problemResponse } from '../endpoints/problem-response.ts';
import { routeDecisions } from '../endpoints/route-decision.ts';
import { routeErrorAnswer } from '../endpoints/route-error-answer.ts';
import { authorizeMetadata } from '../endpoints/route-metadata.ts';
import { type ResourceCheck, resourceChecks } from '../endpoints/resource-checks.ts';
import { secureAnswer, secureAnswerHeaders } from '../endpoints/response-headers.ts';
import { type ReceivedRequest, readableHeaders, receivedRequestOf } from '../endpoints/web-exchange.ts';
import { NOT_FOUND_ANSWER, refusalAsResponse, webRefusals } from '../endpoints/web-refusal.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { graphiqlFetchHandler } from '../graphql/graphiql/graphiql-fetch.ts';
import type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import { type GatehouseInstance, instanceInternals, startGatehouseInstance } from '../hosting/gatehouse-instance.ts';
import type { GatehouseInstanceOptions } from '../hosting/gatehouse-options.ts';
import { guardedHeaders } from '../security/authentication/index.ts';
import type { AuthorizeData } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import { honoGraphQL, type HonoGraphQL } from './hono-graphql.ts';
import { honoMetrics } from './hono-metrics.ts';
import { requestValidation, type RequestSchemas, type ValidatedInput } from './request-validation.ts';
import { protectionMarker, protectionOf, type RouteProtection, routesAhead } from './route-protection.ts';

/** What Gatehouse's middleware sets on each request's context: `c.var.user`, `c.var.authorize`. */
export interface GatehouseVariables {
  /** The caller; an unauthenticated principal on anonymous routes and where no route answers. */
  user: ClaimsPrincipal;
  /** A resource check of the caller (ASP.NET's `IAuthorizationService.AuthorizeAsync`): rejects with 401 or 403, which `onError` answers. */
  authorize: ResourceCheck;
}

/** The environment of an application's Hono app: `new Hono<GatehouseEnv>()`. */
export interface GatehouseEnv extends Env {
  Variables: GatehouseVariables;
}

/** Gatehouse for one Hono application. */
export interface HonoGatehouse {
  /** The use cases, policies and store the application uses (users, API keys, sessions, the audit trail). */
  readonly gatehouse: Gatehouse;
  /**
   * The Prometheus metrics (docs/operations.md), when `METRICS` or the `metrics` option turns them
   * on: serves their path to loopback callers (on Node) and the bearer of `METRICS_TOKEN`, and
   * times every request after it by route pattern. Goes first, before anything that answers;
   * passes every request on when the metrics are off.
   */
  readonly metrics: MiddlewareHandler;
  /** Gatehouse's endpoints at their paths (one `fetch` handler); any other request goes on. */
  readonly endpoints: MiddlewareHandler;
  /** Decides each request at its route; goes before the application's routes (`app.use(auth.middleware)`). */
  readonly middleware: MiddlewareHandler<GatehouseEnv>;
  /** Protects a route, or with `use` the routes a path matches (ASP.NET's `[Authorize]`); several entries must all hold. */
  authorize(...entries: AuthorizeData<PolicyName>[]): MiddlewareHandler;
  /** Opens a route to anyone, whatever its groups say; credentials are not read (ASP.NET's `[AllowAnonymous]`). */
  allowAnonymous(): MiddlewareHandler;
  /**
   * Reads and checks a route's path parameters, JSON body and query against TypeBox (JSON)
   * schemas, with the rules of Gatehouse's own endpoints (415, 413 past `BODY_LIMIT_BYTES`, 400
   * with every error named by field); the values are `c.req.valid('param' | 'json' | 'query')`.
   * Put it after the route's `authorize(…)`: a caller without credentials gets 401, never 400.
   */
  validate<Schemas extends RequestSchemas>(schemas: Schemas): MiddlewareHandler<Env, string, ValidatedInput<Schemas>>;
  /** `app.notFound(auth.notFound)`: 404 problem+json (a page for a browser under the membership paths). */
  readonly notFound: NotFoundHandler;
  /**
   * `app.onError(auth.onError)`: a refused resource check as 401 or 403, Gatehouse's errors and
   * the application's `ProblemError`s as problem+json; Hono's `HTTPException` as it says; any
   * other error logged and answered 500 problem+json.
   */
  readonly onError: ErrorHandler;
  /**
   * GraphQL for the application's schema, with `@authorize` rules checked by the same policies
   * (gatehouse-auth/graphql's options): `handler` serves its path, `attach(server)` its sockets.
   */
  graphql<Context extends object = object, Policy extends string = PolicyName>(options: GatehouseGraphQLOptions<Context, Policy>): Promise<HonoGraphQL>;
  /** GraphiQL at `/graphiql`, for development only: `if (!config.production) app.use(auth.graphiql())`. */
  graphiql(): MiddlewareHandler;
  /**
   * A Node HTTP server for the application (`@hono/node-server`'s listener) with Gatehouse's
   * settings: `REQUEST_TIMEOUT_SECONDS`, Node's own refusals (408, 431, bytes that are not HTTP)
   * as problem+json. Use it instead of `serve()` on Node. Throws, naming them, when routes were
   * registered before the middleware: Hono would serve them to anyone.
   */
  createServer(app: HonoApplication): Server;
  /** Stops the work beside the requests and closes what Gatehouse opened. */
  close(): Promise<void>;
}

/** What `createServer` needs of a Hono application: its `fetch`, and its routes in the order they were registered. */
export interface HonoApplication {
  readonly fetch: Parameters<typeof getRequestListener>[0];
  readonly routes: readonly RouterRoute[];
}

/** How the Hono host reads what the request itself does not say. */
export interface HonoHostOptions {
  /** Where Gatehouse logs (credentials redacted by default). */
  readonly logger?: Logger;
  /**
   * The caller's address. By default, on `@hono/node-server`, the socket's peer, or under
   * `TRUST_PROXY` the client `X-Forwarded-For` names; elsewhere none (give it for other runtimes).
   */
  readonly clientAddress?: (c: Context) => string;
}

/** Builds and starts Gatehouse for a Hono application. */
export async function gatehouse(options: GatehouseInstanceOptions = {}, host: HonoHostOptions = {}): Promise<HonoGatehouse> {
  return onHono(await startGatehouseInstance(options, host), host);
}

function onHono(instance: GatehouseInstance, host: HonoHostOptions): HonoGatehouse {
  const { config, authorization, paths } = instance;
  const { services } = instanceInternals(instance);
  for (const warning of instance.warnings) services.logger.warn(warning);
  const anonymous = ClaimsPrincipal.anonymous();
  const checks = resourceChecks(authorization);
  const cookieSession = cookieSessionCheck({ trustedOrigins: trustedOrigins(config), production: config.production, clock: instance.gatehouse.clock });
  const loginPage = (returnUrl: string) => paths.loginFor(returnUrl);
  const nodeAddress = clientAddress(config.trustProxy);
  const addressOf = host.clientAddress ?? ((c: Context) => {
    const incoming = nodeRequest(c);
    return incoming === undefined ? '' : nodeAddress(incoming);
  });
  const headerOptions = { production: config.production, credentialHeaders: guardedHeaders(instance.schemes.handlers) };
  /** Each route's decision, by its key (the route and the combination of its markers and groups). */
  const decisions = new Map<string, ResolvedEndpointAuthorization>();
  const resolvedFor = (protection: RouteProtection) => {
    let resolved = decisions.get(protection.key);
    if (resolved === undefined) decisions.set(protection.key, (resolved = endpointAuthorization(authorization, protection)));
    return resolved;
  };

  /** A refusal as a response; a browser's 403 or 404 under the membership paths as the error page, as on every host. */
  const refuse = webRefusals(instance.pages, paths.prefix);
  const refusal = (c: Context, answer: EndpointResponse): Response => refuse(answer, { url: target(c), headers: requestHeaders(c) });
  const decide = routeDecisions({ cookieSession, loginPage });
  const errorOptions = { log: services.logger, loginPage };
  /**
   * The request as schemes read it. On `@hono/node-server`, from Node's own request: building the
   * Web request's headers is most of what a request costs there, and the middleware needs none of it.
   */
  const received = (c: Context): ReceivedRequest => {
    const incoming = nodeRequest(c);
    return incoming === undefined ? receivedRequestOf(c.req.raw, new URL(c.req.url), addressOf(c)) : receivedFromNode(incoming, incoming.url ?? target(c), addressOf(c));
  };

  const middleware: MiddlewareHandler<GatehouseEnv> = async (c, next) => {
    const incoming = nodeRequest(c);
    if (incoming === undefined && !readableHeaders(c.req.raw)) return refusalAsResponse(NOT_HTTP);
    const secured = securedAnswers(c);
    // A path that is not valid percent-encoding is the caller's error, as on every host, not a 404.
    if (!validPercentEncoding(target(c).split('?', 1)[0]!)) return secured(refusal(c, INVALID_URL_ANSWER));
    const protection = protectionOf(c);
    const resolved = protection === undefined ? undefined : resolvedFor(protection);
    if (resolved === undefined || resolved.authorize === null) {
      c.set('user', anonymous);
      c.set('authorize', (resource, policy) => checks.checkFor(anonymous, received(c))(resource, policy));
      await next();
      return secured();
    }
    const request = received(c);
    const decision = await decide(resolved, request);
    c.set('user', decision.principal);
    c.set('authorize', checks.checkFor(decision.principal, request));
    if (decision.kind === 'refused') return secured(refusal(c, decision.response));
    await next();
    const { renewed } = decision;
    if (renewed !== undefined) c.header('set-cookie', serializeCookie(renewed.name, renewed.value, renewed.attributes), { append: true });
    return secured();
  };

  /**
   * The headers of every answer after the middleware, the application's included
   * (docs/reference/http.md). On Node, set on Node's response at once, as Express's middleware
   * sets them: the answer's own `Headers` would make `@hono/node-server` build a Web `Response`
   * it otherwise never needs (about 10 % of `/me`'s CPU time). Elsewhere, on the finished answer.
   */
  const securedAnswers = (c: Context): ((answer?: Response) => Response | undefined) => {
    const outgoing = nodeResponse(c);
    if (outgoing !== undefined) {
      secureAnswer((name, value) => outgoing.setHeader(name, value), outgoing.req.headers, headerOptions);
      return answerAsItIs;
    }
    return (answer) => {
      secureAnswerHeaders((answer ?? c.res).headers, requestHeaders(c), headerOptions);
      return answer;
    };
  };

  /** The requests the metrics' middleware timed: without it, Gatehouse's endpoints tell once that nothing serves the metrics. */
  const timed = new WeakSet<Request>();
  let untimedTold = false;
  const metrics: MiddlewareHandler = instance.metrics === undefined ? (_c, next) => next() : honoMetrics(instance.metrics, nodeRequest, (request) => timed.add(request));

  const endpoints: MiddlewareHandler = async (c, next) => {
    if (instance.metrics !== undefined && !untimedTold && !timed.has(c.req.raw)) {
      untimedTold = true;
      services.logger.warn(`metrics are on, but auth.metrics is not used before auth.endpoints: nothing serves ${instance.metrics.path} (app.use(auth.metrics) first)`);
    }
    if (!instance.fetch.serves(c.req.method, c.req.path)) return next();
    const node = nodeRequest(c);
    if (node === undefined && !readableHeaders(c.req.raw)) return refusalAsResponse(NOT_HTTP);
    return instance.fetch(c.req.raw, { ip: addressOf(c), ...(node === undefined ? {} : { node }) });
  };

  return {
    gatehouse: instance.gatehouse,
    metrics,
    endpoints,
    middleware,
    authorize: (...entries) => {
      // An unknown policy name fails here, where the route is defined, not at its first request.
      for (const entry of entries) if (typeof entry.policy === 'string') authorization.policies.get(entry.policy);
      return protectionMarker(authorizeMetadata(entries));
    },
    allowAnonymous: () => protectionMarker({ allowAnonymous: true }),
    validate: (schemas) => requestValidation(schemas, config.bodyLimitBytes),
    notFound: (c) => refusal(c, NOT_FOUND_ANSWER),
    onError: (error, c) => {
      instance.metrics?.errorSeen(error);
      return isHttpException(error) ? error.getResponse() : refusal(c, routeErrorAnswer(error, () => received(c), errorOptions));
    },
    graphql: async (options) => {
      const graphql = await honoGraphQL(instance.gatehouse, options, (c) => ({ ip: addressOf(c), ...nodeOf(c) }), nodeAddress);
      instance.metrics?.labelPath(graphql.path);
      return graphql;
    },
    graphiql: () => {
      const graphiql = graphiqlFetchHandler();
      return async (c, next) => (graphiql.serves(c.req.method, c.req.path) ? graphiql(c.req.raw) : next());
    },
    createServer: (app) => {
      const ahead = routesAhead(app.routes, middleware);
      if (ahead.length > 0) {
        throw new Error(
          `These routes come before Gatehouse's middleware and would be served to anyone: ${ahead.join('; ')}. ` +
            'Register it before them (app.use(auth.middleware)); a route that needs no caller says auth.allowAnonymous().',
        );
      }
      const server = createServer(requestTimeouts(config.requestTimeoutSeconds), getRequestListener(app.fetch));
      server.on('clientError', clientErrorHandler(config.production));
      return server;
    },
    close: () => instance.close(),
  };
}

/** Hono's `HTTPException` (its own middleware's refusals), told by shape so that any copy of Hono is recognized. */
function isHttpException(error: unknown): error is { getResponse(): Response } {
  return error instanceof Error && error.name === 'HTTPException' && typeof (error as { getResponse?: unknown }).getResponse === 'function';
}

/** Node's request under `@hono/node-server` (its `env.incoming`); undefined on other runtimes. */
function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** An answer whose headers went on Node's response already. */
const answerAsItIs = (answer?: Response): Response | undefined => answer;

/** Node's response under `@hono/node-server` (its `env.outgoing`); undefined on other runtimes. */
function nodeResponse(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
}

/** `FetchRequestOptions.node` of a request on Node: its headers and body are read from Node's request. */
function nodeOf(c: Context): { node?: IncomingMessage } {
  const node = nodeRequest(c);
  return node === undefined ? {} : { node };
}

/** The request's target as sent: its path and query. */
function target(c: Context): string {
  const incoming = nodeRequest(c);
  if (incoming?.url !== undefined) return incoming.url;
  const { url } = c.req;
  return url.slice(url.indexOf('/', url.indexOf('://') + 3));
}

/** The request's headers by lower-case name: Node's own when there are. */
function requestHeaders(c: Context): Readonly<Record<string, string | string[] | undefined>> {
  return nodeRequest(c)?.headers ?? headersOf(c.req.raw);
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

const INVALID_URL_ANSWER = knownErrorAnswer(INVALID_URL)!.response;
const NOT_HTTP = problemResponse(clientErrorProblem(undefined));
