/**
 * Gatehouse on Express 5: the same instance as on Fastify, served by Express middleware.
 *
 *   const auth = await gatehouse({ settings, policies, handlers });
 *   const app = express();
 *   app.use(auth.metrics);            // first: times every request; `/metrics` when METRICS is on
 *   app.use(auth.endpoints);          // Gatehouse's own: sign-in, tokens, account, pages, admin
 *   app.use(auth.middleware);         // before the application's routes
 *   app.get('/reports', auth.authorize({ policy: 'PremiumOnly' }), (req, res) => …);
 *   app.use(auth.errors);             // last: a refused resource check answers 401 or 403
 *
 * A request is decided at its route (route-protection.ts): the route's own `authorize(…)` or
 * `allowAnonymous()`, the groups of the routers around it, else the fallback policy, combined as
 * on every host (endpoints/authorize-endpoint.ts). A request no route matches stays anonymous and
 * gets Express's 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { serialize as serializeCookie } from 'cookie';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { endpointAuthorization, type EndpointAuthorization, type ResolvedEndpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import { cookieSessionCheck, trustedOrigins } from '../endpoints/cookie-session-check.ts';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import { clientErrorHandler, requestTimeouts } from '../endpoints/client-errors.ts';
import { knownErrorAnswer } from '../endpoints/error-answers.ts';
import { nodeMetrics } from '../endpoints/node-metrics.ts';
import { receivedFromNode } from '../endpoints/node-request.ts';
import type { ReceivedRequest } from '../endpoints/web-exchange.ts';
import { INVALID_URL, validPercentEncoding } from '../endpoints/percent-encoding.ts';
import { problemResponse } from '../endpoints/problem-response.ts';
import { refusalForReader } from '../endpoints/refusal-page.ts';
import { refusalResponse } from '../endpoints/refusal-response.ts';
import { authorizeMetadata } from '../endpoints/route-metadata.ts';
import { AuthorizationRefusal, type ResourceCheck, type ResourcePolicy, resourceChecks } from '../endpoints/resource-checks.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { type GatehouseInstance, instanceInternals, startGatehouseInstance } from '../hosting/gatehouse-instance.ts';
import type { GatehouseInstanceOptions } from '../hosting/gatehouse-options.ts';
import type { AuthorizeData } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import { GatehouseError } from '../security/errors.ts';
import { problem } from '../security/problem-details.ts';
import { secureAnswer } from '../endpoints/response-headers.ts';
import { guardedHeaders } from '../security/authentication/index.ts';
import type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import { graphiqlFetchHandler } from '../graphql/graphiql/graphiql-fetch.ts';
import { expressGraphQL, type ExpressGraphQL } from './express-graphql.ts';
import { jsonBody } from './json-body.ts';
import { type RequestSchemas, requestValidation } from './request-validation.ts';
import { fetchOptionsOf, webRequest, writeWebResponse } from './web-bridge.ts';
import { protectionMarker, type RouteDecision, type RouteProtection, routesAhead, routeWatcher } from './route-protection.ts';
import { routePattern } from './route-pattern.ts';

declare global {
  // Express's own way to type what a middleware adds to its request.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The caller; an unauthenticated principal on anonymous routes and where no route matched. */
      user: ClaimsPrincipal;
      /** A resource check of the caller (ASP.NET's `IAuthorizationService.AuthorizeAsync`): rejects with 401 or 403, which `errors` answers. */
      authorize: ResourceCheck;
    }
  }
}

/** Gatehouse for one Express application. */
export interface ExpressGatehouse {
  /** The use cases, policies and store the application uses (users, API keys, sessions, the audit trail). */
  readonly gatehouse: Gatehouse;
  /**
   * The Prometheus metrics (docs/operations.md), when `METRICS` or the `metrics` option turns them
   * on: serves their path to loopback callers and the bearer of `METRICS_TOKEN`, and times every
   * request after it by route pattern. Goes first, before anything that answers; passes every
   * request on when the metrics are off.
   */
  readonly metrics: RequestHandler;
  /** Gatehouse's endpoints at their paths; any other request goes on. Works whether body parsers ran before it or not. */
  readonly endpoints: RequestHandler;
  /** Decides each request at its route; goes before the application's routes and routers. */
  readonly middleware: RequestHandler;
  /**
   * Answers a refused resource check (401 or 403), Gatehouse's errors and the application's
   * `ProblemError`s as problem+json; goes after the routes. Any other error goes on to the
   * application's error handlers (or Express's 500).
   */
  readonly errors: ErrorRequestHandler;
  /** Protects a route, or with `use` the routes of a router after it (ASP.NET's `[Authorize]`); several entries must all hold. */
  authorize(...entries: AuthorizeData<PolicyName>[]): RequestHandler;
  /** Opens a route to anyone, whatever its routers say; credentials are not read (ASP.NET's `[AllowAnonymous]`). */
  allowAnonymous(): RequestHandler;
  /**
   * Checks a route's path parameters, body and query against TypeBox (JSON) schemas, with the
   * rules of Gatehouse's own endpoints: a body as sent, no property dropped, every error named by
   * field; an invalid request goes to `errors` as 400 problem+json. Defaults are filled in.
   */
  validate(schemas: RequestSchemas): RequestHandler;
  /**
   * A JSON body parser with the rules of Gatehouse's own endpoints (415 for another type or
   * charset, 400 for bad or hostile JSON, 413 past `limit`, `BODY_LIMIT_BYTES` by default). Put
   * it among a route's handlers, after its `authorize(…)`: the route is decided before its
   * handlers run, so a caller without credentials gets 401, never 400, 413 or 415.
   */
  json(options?: { readonly limit?: number }): RequestHandler;
  /**
   * GraphiQL at `/graphiql`, its files under `/graphiql/assets/`, open to anyone: for development
   * only (`if (!config.production) app.use(auth.graphiql())`); production serves no such page.
   * Needs the optional peers `graphiql`, `react` and `react-dom`.
   */
  graphiql(): RequestHandler;
  /** Answers every request that reached it with 404 problem+json: after the routes, before `errors`. */
  readonly notFound: RequestHandler;
  /**
   * GraphQL for the application's schema, with `@authorize` rules checked by the same policies
   * (gatehouse-auth/graphql's options): `handler` serves its path, `attach(server, app)` its sockets.
   */
  graphql<Context extends object = object, Policy extends string = PolicyName>(options: GatehouseGraphQLOptions<Context, Policy>): Promise<ExpressGraphQL>;
  /**
   * A Node HTTP server for the application with Gatehouse's settings: a request whose headers and
   * body have not arrived within `REQUEST_TIMEOUT_SECONDS` is cut off with 408, and Node's own
   * refusals (408, 431, bytes that are not HTTP) are problem+json. Use it instead of `app.listen`.
   */
  createServer(app: (request: IncomingMessage, response: ServerResponse) => void): Server;
  /** Stops the work beside the requests and closes what Gatehouse opened. */
  close(): Promise<void>;
}

/** Builds and starts Gatehouse for an Express application; `logger` is where it logs (credentials redacted by default). */
export async function gatehouse(options: GatehouseInstanceOptions = {}, host: { readonly logger?: Logger } = {}): Promise<ExpressGatehouse> {
  return onExpress(await startGatehouseInstance(options, host));
}

function onExpress(instance: GatehouseInstance): ExpressGatehouse {
  const { config, authorization, paths } = instance;
  const anonymous = ClaimsPrincipal.anonymous();
  const checks = resourceChecks(authorization);
  const cookieSession = cookieSessionCheck({ trustedOrigins: trustedOrigins(config), production: config.production, clock: instance.gatehouse.clock });
  const loginPage = (returnUrl: string) => paths.loginFor(returnUrl);
  /** Each route's decisions, by the combination of its markers and groups. */
  const decisions = new WeakMap<object, Map<string, ResolvedEndpointAuthorization>>();
  const { services } = instanceInternals(instance);
  for (const warning of instance.warnings) services.logger.warn(warning);

  function resolvedFor(route: object, protection: RouteProtection): ResolvedEndpointAuthorization {
    let byKey = decisions.get(route);
    if (byKey === undefined) decisions.set(route, (byKey = new Map()));
    let resolved = byKey.get(protection.key);
    if (resolved === undefined) byKey.set(protection.key, (resolved = endpointAuthorization(authorization, protection)));
    return resolved;
  }

  /** A refusal written to the response, as on Fastify: a browser's 403 or 404 under the membership paths as the error page, a problem in the reader's language. */
  const forReader = refusalForReader(instance.pages, paths.prefix);
  const refuse = (request: Request, response: Response, answer: EndpointResponse) => send(response, forReader(answer, { url: request.originalUrl, headers: request.headers }));

  const decide: RouteDecision = (request, response, next, protection) => {
    let resolved: ResolvedEndpointAuthorization;
    let received: ReceivedRequest;
    let known: EndpointAuthorization | undefined;
    try {
      resolved = resolvedFor(request.route as object, protection);
      if (resolved.authorize === null) {
        request.user = anonymous;
        return next();
      }
      received = receivedRequest(request);
      known = resolved.recognize?.(received);
    } catch (error) {
      return next(error);
    }
    const proceed = (decided: EndpointAuthorization) => {
      request.user = decided.principal;
      request.authorize = checks.checkFor(decided.principal, received);
      if (decided.outcome.kind !== 'success') return refuse(request, response, refusalResponse(decided.outcome, received, loginPage));
      const verdict = decided.authentication === undefined ? undefined : cookieSession(received, decided.authentication);
      if (verdict?.kind === 'refused') return refuse(request, response, problemResponse(verdict.problem));
      if (verdict?.renewed !== undefined) response.append('set-cookie', serializeCookie(verdict.renewed.name, verdict.renewed.value, verdict.renewed.attributes));
      next();
    };
    if (known !== undefined) return proceed(known);
    resolved.authorize!(received).then(proceed, next);
  };

  /**
   * Checked at the first request it sees: routes Express tries before it would be served
   * undecided. If there are any, the log names them once, and from then on they and every request
   * the middleware sees are refused (Express's 500), as Fastify's plugin refuses to start.
   */
  let routesAheadRefusal: Error | null | undefined;
  const watchRoutes = routeWatcher(decide);
  const headerOptions = { production: config.production, credentialHeaders: guardedHeaders(instance.schemes.handlers) };
  const middleware: RequestHandler = (request, response, next) => {
    routesAheadRefusal ??= refusalOfRoutesAhead(request, middleware, services.logger);
    if (routesAheadRefusal !== null) return next(routesAheadRefusal);
    // Every answer after it, the application's included (docs/reference/http.md).
    secureAnswer((name, value) => response.setHeader(name, value), request.headers, headerOptions);
    // A path that is not valid percent-encoding is the caller's error, as on every host, not a 404.
    if (!validPercentEncoding(request.path)) return next(INVALID_URL);
    request.user = anonymous;
    // Where no route decides (a middleware of the application's), the caller is anonymous.
    request.authorize = (resource, policy) => checks.checkFor(anonymous, receivedRequest(request))(resource, policy);
    watchRoutes(request);
    next();
  };

  const { metrics, timed } = metricsMiddleware(instance);
  /** Told once: with the metrics on and `metrics` left out, nothing serves `/metrics`. */
  let untimedTold = false;

  return {
    gatehouse: instance.gatehouse,
    metrics,
    endpoints: (request, response, next) => {
      if (instance.metrics !== undefined && !untimedTold && !timed.has(request)) {
        untimedTold = true;
        services.logger.warn(`metrics are on, but auth.metrics is not used before auth.endpoints: nothing serves ${instance.metrics.path} (app.use(auth.metrics) first)`);
      }
      if (!instance.fetch.serves(request.method, `${request.baseUrl}${request.path}`)) return next();
      instance
        .fetch(...fetchOptionsOf(request))
        .then((answer) => writeWebResponse(response, answer))
        .catch(next);
    },
    middleware,
    errors: (error, request, response, next) => {
      instance.metrics?.errorSeen(error);
      if (error instanceof AuthorizationRefusal) return refuse(request, response, refusalResponse(error.outcome, receivedRequest(request), loginPage));
      const known = knownErrorAnswer(bodyParserRefusal(error) ?? error);
      if (known === undefined) return next(error);
      if (known.report !== undefined) services.logger[known.report.level]({ err: known.report.err }, known.report.message);
      refuse(request, response, known.response);
    },
    authorize: (...entries) => {
      // An unknown policy name fails here, where the route is defined, not at its first request.
      for (const entry of entries) if (typeof entry.policy === 'string') authorization.policies.get(entry.policy);
      return protectionMarker(authorizeMetadata(entries));
    },
    allowAnonymous: () => protectionMarker({ allowAnonymous: true }),
    validate: (schemas) => requestValidation(schemas),
    json: (options = {}) => jsonBody(options.limit ?? config.bodyLimitBytes),
    notFound: (request, response) => refuse(request, response, NOT_FOUND),
    graphql: async (options) => {
      const graphql = await expressGraphQL(instance.gatehouse, options);
      instance.metrics?.labelPath(graphql.path);
      return graphql;
    },
    graphiql: () => {
      const graphiql = graphiqlFetchHandler();
      return (request, response, next) => {
        if (!graphiql.serves(request.method, request.path)) return next();
        graphiql(webRequest(request))
          .then((answer) => writeWebResponse(response, answer))
          .catch(next);
      };
    },
    createServer: (app) => {
      const server = createServer(requestTimeouts(config.requestTimeoutSeconds), app);
      server.on('clientError', clientErrorHandler(config.production));
      return server;
    },
    close: () => instance.close(),
  };
}

/** The metrics' middleware (a pass when they are off), and the requests it has seen. */
function metricsMiddleware(instance: GatehouseInstance): { metrics: RequestHandler; timed: WeakSet<object> } {
  const timed = new WeakSet<object>();
  if (instance.metrics === undefined) return { metrics: (_request, _response, next) => next(), timed };
  const served = nodeMetrics(instance.metrics, (request) => routePattern(request as Request));
  return {
    metrics: (request, response, next) => {
      timed.add(request);
      served(request, response, next);
    },
    timed,
  };
}

/**
 * Express's body parsers' refusals (body-parser's `type`) as Gatehouse's errors, so that they are
 * answered as problem+json like the same body sent to Gatehouse's endpoints; null for any other error.
 */
function bodyParserRefusal(error: unknown): GatehouseError | null {
  switch ((error as { type?: unknown } | null)?.type) {
    case 'entity.parse.failed':
      return GatehouseError.validation({ body: [(m) => m.problemBodyNotJson] }, (m) => m.problemBodyNotJson);
    case 'entity.too.large':
      return new GatehouseError('GH_PAYLOAD_TOO_LARGE', (m) => m.problemBodyTooLarge);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotAccepted);
    default:
      return null;
  }
}

/** The refusal while routes come before the middleware (logged once), or null when none does. */
function refusalOfRoutesAhead(request: Request, middleware: RequestHandler, logger: Pick<Logger, 'error'>): Error | null {
  const { router } = request.app as unknown as { router: { stack: Parameters<typeof routesAhead>[0] } };
  const ahead = routesAhead(router.stack, middleware) ?? [];
  if (ahead.length === 0) return null;
  const refusal = new Error(
    `These routes come before Gatehouse's middleware and would be served to anyone: ${ahead.map((route) => route.description).join('; ')}. ` +
      'Register it before them (app.use(auth.middleware)); a route that needs no caller says auth.allowAnonymous().',
  );
  logger.error(refusal.message);
  for (const route of ahead) route.close(refusal);
  return refusal;
}

/** The Express request as schemes read it: its target as sent, its address as `trust proxy` tells it. */
function receivedRequest(request: Request): ReceivedRequest {
  return receivedFromNode(request, request.originalUrl, request.ip ?? '');
}



const NOT_FOUND = problemResponse(problem('GH_NOT_FOUND', (m) => m.problemNoSuchResource));

/** An answer of Gatehouse's (a refusal) written to Express's response: never stored, never sniffed. */
function send(response: Response, answer: EndpointResponse): void {
  response.status(answer.status);
  response.setHeader('cache-control', 'no-store');
  response.setHeader('x-content-type-options', 'nosniff');
  for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
  for (const { name, value, attributes } of answer.cookies ?? []) response.append('set-cookie', serializeCookie(name, value, attributes));
  if (answer.body === undefined) {
    response.end();
    return;
  }
  const type = answer.headers?.['content-type'] ?? 'application/json';
  response.setHeader('content-type', /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`);
  response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
}

export type { ResourcePolicy };
