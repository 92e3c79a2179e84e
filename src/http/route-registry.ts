/**
 * Every route of an application, as Fastify's `onRoute` hooks see it, recorded from the moment the
 * application's Fastify instance is created: so that the pipeline (pipeline.ts) can refuse to
 * start with a route it does not protect, even one registered before Gatehouse or in a plugin
 * whose hooks Gatehouse cannot reach (ASP.NET throws for an endpoint with authorization metadata
 * that no authorization middleware saw).
 *
 * Fastify announces each new instance on the `fastify.initialization` diagnostics channel, its
 * documented hook point for instrumentation, before any route can be registered; a root-level
 * `onRoute` hook added then is copied into every plugin context created later, so it sees every
 * route. An instance created before this module was loaded (Gatehouse imported lazily, e.g. by an
 * autoloader) is recorded from when the pipeline is registered instead (`recordFromNow`).
 */
import { subscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';

/** Routes by the root instance of their application; gone with the application. */
const registries = new WeakMap<object, RouteOptions[]>();

subscribe('fastify.initialization', (message) => {
  record((message as { fastify: FastifyInstance }).fastify);
});

function record(root: FastifyInstance): RouteOptions[] {
  const routes: RouteOptions[] = [];
  registries.set(root, routes);
  root.addHook('onRoute', (route) => {
    routes.push(route);
  });
  return routes;
}

/**
 * The routes registered so far in the application `instance` belongs to (its root or any plugin
 * context in it), each the options object every `onRoute` hook received; undefined when the
 * application was created before this module was loaded.
 */
export function registeredRoutes(instance: FastifyInstance): readonly RouteOptions[] | undefined {
  for (let scope: object | null = instance; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const routes = registries.get(scope);
    if (routes !== undefined) return routes;
  }
  return undefined;
}

/**
 * For an application created before this module was loaded: its routes from now on, recorded at
 * its root. A plugin context is made from its parent with `Object.create`, so the root is the
 * last instance up the prototype chain. Contexts created before now are not seen.
 */
export function recordFromNow(instance: FastifyInstance): readonly RouteOptions[] {
  let root = instance;
  for (let scope = Object.getPrototypeOf(root) as object | null; scope !== null && scope !== Object.prototype; scope = Object.getPrototypeOf(scope)) {
    root = scope as FastifyInstance;
  }
  return registeredRoutes(root) ?? record(root);
}

/** "GET,HEAD /invoices" for each path, in registration order: how a start-up error names routes. */
export function describeRoutes(routes: readonly RouteOptions[]): string[] {
  const methodsByUrl = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByUrl.set(route.url, methods);
  }
  return [...methodsByUrl].map(([url, methods]) => `${[...methods].join(',')} ${url}`);
}
