/**
 * Where Express decides a request's protection: at its route, once the route is known, as
 * ASP.NET's authorization middleware runs after routing.
 *
 * Express runs an application's middleware before it matches a route, so a check in a middleware
 * cannot know the route's own rules (`allowAnonymous()` beating its router's `authorize(…)`), nor
 * whether any route matches at all (a 404 must stay a 404). So the protection is declared by
 * markers and decided at the route:
 *
 *   router.use(authorize({ roles: ['Admin'] }))      a group: every route reached after it, nearest last
 *   router.get('/x', authorize({ policy }), handler) the route's own; so is allowAnonymous()
 *
 * The middleware (`gatehouse.middleware`) gives each request a `route` property that sees Express
 * set it: Express sets `req.route` as it starts a route's handlers, and that is when the route's
 * handlers are wrapped, once per route, so that the first of them to run decides first. A route
 * reached without the middleware before it is not decided: the middleware goes before every route.
 */
import type { Request, RequestHandler } from 'express';
import { combinedMetadata, identityOf } from '../endpoints/route-metadata.ts';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** A marker's metadata, kept on the marker function. */
const PROTECTION = Symbol('gatehouse.protection');

/** The groups a request passed on its way, each with the base URL of the router it was met in. */
const GROUPS = Symbol('gatehouse.groups');

/** The route whose protection was decided for this request. */
const DECIDED = Symbol('gatehouse.decided');

/** The route handlers already wrapped (a route's layers are wrapped once). */
const WRAPPED = Symbol('gatehouse.wrapped');

/** A wrapped handler's own function. */
const ORIGINAL = Symbol('gatehouse.original');

type Marker = RequestHandler & { readonly [PROTECTION]: AuthorizationMetadata<PolicyName> };

interface PassedGroup {
  readonly metadata: AuthorizationMetadata<PolicyName>;
  readonly baseUrl: string;
}

interface ProtectedRequest extends Request {
  [GROUPS]?: PassedGroup[];
  [DECIDED]?: object;
}

/** What a route of Express is to this module: its handlers' layers (Express's `Route`). */
interface ExpressRoute {
  readonly stack: { handle: RequestHandler; readonly method?: string }[];
  [WRAPPED]?: true;
}

/** The protection of one route for one request: its own metadata, and the groups around it, nearest first. */
export interface RouteProtection {
  readonly authorization: AuthorizationMetadata<PolicyName> | undefined;
  readonly groups: readonly AuthorizationMetadata<PolicyName>[];
  /** Identifies the combination, for the decision kept per route. */
  readonly key: string;
}

/** Decides the request for its route; calls `next` to go on, or answers it. */
export type RouteDecision = (request: Request, response: Parameters<RequestHandler>[1], next: (error?: unknown) => void, protection: RouteProtection) => void;

/**
 * A marker of protection: used with `use`, a group for the routes after it; among a route's
 * handlers, the route's own. It does nothing when it runs as a route handler (its metadata was read
 * when the route was decided).
 */
export function protectionMarker(metadata: AuthorizationMetadata<PolicyName>): Marker {
  const marker: RequestHandler = (request, _response, next) => {
    const protectedRequest = request as ProtectedRequest;
    // Run by `use`, not among the handlers of the route under way: a group for the routes reached after it.
    if (!routeHolds(request.route, marker)) (protectedRequest[GROUPS] ??= []).push({ metadata, baseUrl: request.baseUrl });
    next();
  };
  return Object.assign(marker, { [PROTECTION]: metadata });
}

/** The route Express set on a watched request. */
const ROUTE = Symbol('gatehouse.route');

interface WatchedRequest extends Request {
  [ROUTE]?: unknown;
}

/**
 * Lets `decide` run before the first handler of each route a request reaches, by watching Express
 * set `req.route`: call it once, and the function it returns for each request (the middleware).
 * Every request gets the same getter and setter, so that defining them keeps V8's shape of
 * Express's requests shared, and their properties as fast to read as without them.
 */
export function routeWatcher(decide: RouteDecision): (request: Request) => void {
  const route: PropertyDescriptor = {
    configurable: true,
    enumerable: true,
    get(this: WatchedRequest) {
      return this[ROUTE];
    },
    set(this: WatchedRequest, value: unknown) {
      this[ROUTE] = value;
      if (isExpressRoute(value) && value[WRAPPED] !== true) wrapRoute(value, decide);
    },
  };
  return (request) => {
    (request as WatchedRequest)[ROUTE] = undefined;
    Object.defineProperty(request, 'route', route);
  };
}

/** Whether `handler` is one of the route's (Express leaves `req.route` set after a route it left). */
function routeHolds(route: unknown, handler: RequestHandler): boolean {
  return isExpressRoute(route) && route.stack.some(({ handle }) => handle === handler || (handle as { [ORIGINAL]?: RequestHandler })[ORIGINAL] === handler);
}

function isExpressRoute(route: unknown): route is ExpressRoute {
  return typeof route === 'object' && route !== null && Array.isArray((route as ExpressRoute).stack);
}

/**
 * Wraps each request handler of the route (error handlers, of four arguments, are left: Express
 * tells them by their length): the first to run for a request decides it for the route first.
 */
function wrapRoute(route: ExpressRoute, decide: RouteDecision): void {
  route[WRAPPED] = true;
  for (const layer of route.stack) {
    const handle = layer.handle;
    if (handle.length >= 4) continue;
    const decidedFirst: RequestHandler = (request, response, next) => {
      const protectedRequest = request as ProtectedRequest;
      if (protectedRequest[DECIDED] === route) return handle(request, response, next);
      protectedRequest[DECIDED] = route;
      const goOn = (error?: unknown) => (error === undefined ? forwardRejection(handle(request, response, next), next) : next(error));
      decide(request, response, goOn, protectionOf(route, protectedRequest));
    };
    layer.handle = Object.assign(decidedFirst, { [ORIGINAL]: handle });
  }
}

/** As Express 5 does for a handler it calls: a rejected promise goes to the error handlers. */
function forwardRejection(result: unknown, next: (error?: unknown) => void): void {
  if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, next);
}

/** The route's own markers combined, and the groups the request passed in the routers that hold it, nearest first. */
function protectionOf(route: ExpressRoute, request: ProtectedRequest): RouteProtection {
  const own = route.stack.flatMap(({ handle }) => {
    const original = (handle as { [ORIGINAL]?: RequestHandler })[ORIGINAL] ?? handle;
    return PROTECTION in original ? [(original as Marker)[PROTECTION]] : [];
  });
  // A group met in a router the request has left (it matched no route there) is not around this route.
  const passed = (request[GROUPS] ?? []).filter(({ baseUrl }) => request.baseUrl.startsWith(baseUrl));
  const groups = passed.map(({ metadata }) => metadata).reverse();
  return { authorization: combinedMetadata(own), groups, key: keyOf(own, groups) };
}

/** The markers' identities, in order: the same groups around the same route decide alike. */
function keyOf(own: readonly object[], groups: readonly object[]): string {
  return `${own.map(identityOf).join(',')}|${groups.map(identityOf).join(',')}`;
}

/** A layer of an Express router: a route's, or a middleware's (a nested router has a `stack` of its own). */
interface RouterLayer {
  readonly handle: RequestHandler & { readonly stack?: readonly RouterLayer[] };
  readonly route?: ExpressRoute & { readonly path: string; readonly methods: Readonly<Record<string, boolean>> };
}

/** A route Express tries before Gatehouse's middleware. */
export interface RouteAhead {
  readonly description: string;
  /** Makes the route refuse every request with `refusal` from now on. */
  close(refusal: Error): void;
}

/**
 * The routes Express tries before it reaches `middleware` (registered ahead of it, in the
 * application or in a router it passes first): they would be served undecided, to anyone. Empty
 * when the middleware comes first, undefined when it is not in `stack`.
 */
export function routesAhead(stack: readonly RouterLayer[], middleware: RequestHandler): RouteAhead[] | undefined {
  const ahead: RouteAhead[] = [];
  for (const layer of stack) {
    if (layer.handle === middleware) return ahead;
    if (layer.route !== undefined) {
      ahead.push(routeAhead(layer.route));
      continue;
    }
    const nested = layer.handle.stack === undefined ? undefined : routesAhead(layer.handle.stack, middleware);
    if (nested !== undefined) return [...ahead, ...nested];
    // A router the middleware is not in: all its routes come before it.
    if (layer.handle.stack !== undefined) ahead.push(...allRoutes(layer.handle.stack));
  }
  return undefined;
}

function allRoutes(stack: readonly RouterLayer[]): RouteAhead[] {
  return stack.flatMap((layer) => {
    if (layer.route !== undefined) return [routeAhead(layer.route)];
    return layer.handle.stack === undefined ? [] : allRoutes(layer.handle.stack);
  });
}

function routeAhead(route: NonNullable<RouterLayer['route']>): RouteAhead {
  return {
    description: `${Object.keys(route.methods).map((method) => method.toUpperCase()).join(',')} ${route.path}`,
    close: (refusal) => {
      for (const layer of route.stack) layer.handle = (_request, _response, next) => next(refusal);
    },
  };
}
