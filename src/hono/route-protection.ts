/**
 * Where Hono decides a request's protection: Hono matches every handler of a request before the
 * first one runs, so Gatehouse's middleware sees the route that will answer and the markers
 * around it (`matchedRoutes`), as ASP.NET's authorization middleware runs after routing:
 *
 *   app.use('/admin/*', authorize({ roles: ['Admin'] }))   a group: the routes it matches
 *   app.get('/x', authorize({ policy }), handler)          the route's own; so is allowAnonymous()
 *
 * The route that answers is the first matched handler that is not a middleware, told apart as
 * Hono tells them (its `matchedRoutes` logger): registered for a method, or a handler that takes
 * no `next`. Markers registered with that route (the same method and path) are its own; markers
 * matched before it are its groups, nearest last. When no route matches, the request is Hono's
 * 404, and the caller stays anonymous.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { combinedMetadata, identityOf } from '../endpoints/route-metadata.ts';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** A marker's metadata, kept on the marker function. */
const PROTECTION = Symbol('gatehouse.protection');

type Marker = MiddlewareHandler & { readonly [PROTECTION]: AuthorizationMetadata<PolicyName> };

/** The protection of the route that answers a request: its own metadata, and its groups, nearest first. */
export interface RouteProtection {
  readonly authorization: AuthorizationMetadata<PolicyName> | undefined;
  readonly groups: readonly AuthorizationMetadata<PolicyName>[];
  /** Identifies the route and the combination, for the decision kept per route. */
  readonly key: string;
}

/** A marker of protection: with `use`, a group for the routes it matches; among a route's handlers, the route's own. It only passes on. */
export function protectionMarker(metadata: AuthorizationMetadata<PolicyName>): MiddlewareHandler {
  const marker: MiddlewareHandler = (_c, next) => next();
  return Object.assign(marker, { [PROTECTION]: metadata });
}

type MatchedRoute = ReturnType<typeof matchedRoutes>[number];

function isMarker(handler: unknown): handler is Marker {
  return typeof handler === 'function' && PROTECTION in handler;
}

/** A handler that answers, not a middleware: Hono's own test (a method route, or no `next`). */
function isRoute({ method, handler }: MatchedRoute): boolean {
  return !isMarker(handler) && (method !== 'ALL' || handler.length < 2);
}

/** The protection of the route that will answer `c`, or undefined when no route matches (a 404). */
export function protectionOf(c: Context): RouteProtection | undefined {
  const matched = matchedRoutes(c);
  const at = matched.findIndex(isRoute);
  if (at === -1) return undefined;
  const route = matched[at]!;
  const sameRoute = (other: MatchedRoute) => other.method === route.method && other.path === route.path && other.basePath === route.basePath;
  const own: Marker[] = [];
  const groups: Marker[] = [];
  matched.forEach((entry, index) => {
    if (!isMarker(entry.handler)) return;
    if (sameRoute(entry)) own.push(entry.handler);
    else if (index < at) groups.unshift(entry.handler);
  });
  return {
    authorization: combinedMetadata(own.map((marker) => marker[PROTECTION])),
    groups: groups.map((marker) => marker[PROTECTION]),
    key: `${identityOf(route.handler)}|${own.map(identityOf).join(',')}|${groups.map(identityOf).join(',')}`,
  };
}

/** The pattern of the route that answers `c` (`/documents/:id`), for the metrics' label; undefined when none does (a 404). */
export function routePattern(c: Context): string | undefined {
  return matchedRoutes(c).find(isRoute)?.path;
}

/**
 * The routes an application registered before Gatehouse's middleware (`app.routes`, in order):
 * Hono runs them before it, so they would be served undecided, to anyone. Empty when the
 * middleware comes first or is not registered.
 */
export function routesAhead(routes: readonly MatchedRoute[], middleware: MiddlewareHandler): string[] {
  const at = routes.findIndex((route) => route.handler === middleware);
  return at === -1 ? [] : routes.slice(0, at).filter(isRoute).map((route) => `${route.method} ${route.path}`);
}
