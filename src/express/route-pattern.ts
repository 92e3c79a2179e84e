import type { Request } from 'express';

/** A layer of an Express router as this module reads it: a route's, or a router mounted at `rawPath`. */
interface PatternLayer {
  readonly route?: object;
  /** The path it was mounted at, as written (the `router` package from 2.3). */
  readonly rawPath?: unknown;
  readonly handle?: { readonly stack?: readonly PatternLayer[] };
}

/** Each route's full pattern, found once. */
const patterns = new WeakMap<object, string>();

/**
 * The pattern of the route that answered an Express request, for the metrics' label: the paths
 * its routers were mounted at and its own (`/documents/:id`), never the URL, whose ids would make a
 * series each. Found by walking the application's router at the route's first answer. Where the
 * mount paths are not kept (a router older than 2.3, a path that is not a string), the routers'
 * part is the path they matched.
 */
export function routePattern(request: Request): string | undefined {
  const route = request.route as { readonly path?: unknown } | undefined;
  if (route === undefined || typeof route.path !== 'string') return undefined;
  const known = patterns.get(route);
  if (known !== undefined) return known;
  const { router } = request.app as unknown as { router: { stack: readonly PatternLayer[] } };
  const found = patternIn(router.stack, route, route.path, '');
  if (found === undefined) return joined(request.baseUrl, route.path);
  patterns.set(route, found);
  return found;
}

function patternIn(stack: readonly PatternLayer[], route: object, path: string, prefix: string): string | undefined {
  for (const layer of stack) {
    if (layer.route === route) return joined(prefix, path);
    const nested = layer.handle?.stack;
    if (layer.route !== undefined || nested === undefined || typeof layer.rawPath !== 'string') continue;
    const found = patternIn(nested, route, path, joined(prefix, layer.rawPath));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `/documents` and `/:id` as `/documents/:id`; a router's own `/` adds nothing (`/documents`). */
function joined(prefix: string, path: string): string {
  const head = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (path === '/' && head !== '') return head;
  return `${head}${path}`;
}
