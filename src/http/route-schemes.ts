/**
 * The start-up check of what routes and policies say about their protection: every scheme they
 * name is registered, and a route's `authorization` metadata uses only the names Gatehouse reads.
 * Without it, `schemes: ['Bearr']` fails every request with a 500 and `authorise: […]` (or
 * `polcy`) leaves a route under the fallback or default policy instead of the one meant.
 *
 * Its own `onRoute` hook, added after the pipeline's: it reads the policy the pipeline resolved
 * for the route (the route's, its group's, the named, default or fallback policy it stands for).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import { refuseUnknownSchemes } from '../hosting/policy-checks.ts';
import type { AuthorizationMetadata, AuthorizeData } from '../security/authorization/index.ts';

const METADATA = { authorize: true, allowAnonymous: true } as const satisfies OptionNames<AuthorizationMetadata>;
const AUTHORIZE_DATA = { policy: true, roles: true, schemes: true } as const satisfies OptionNames<AuthorizeData>;

export interface RouteSchemeCheckOptions {
  /** The names of the registered schemes. */
  readonly schemes: readonly string[];
}

async function routeSchemeCheck(app: FastifyInstance, { schemes }: RouteSchemeCheckOptions): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    try {
      if (route.config?.authorization !== undefined) checkAuthorizationMetadata('config.authorization', route.config.authorization);
      const policy = route.config?.policy;
      if (policy) refuseUnknownSchemes(policy, schemes);
    } catch (error) {
      throw new Error(`${routeName(route)}: ${(error as Error).message}`, { cause: error });
    }
  });
}

/** Registered after the pipeline, before any route. */
export const routeSchemeCheckPlugin = fp(routeSchemeCheck, { name: 'gatehouse-route-schemes', fastify: '5.x', dependencies: ['gatehouse-pipeline'] });

/** What a route or a group says about its protection, refused when it uses a name Gatehouse does not read. */
export function checkAuthorizationMetadata(where: string, metadata: AuthorizationMetadata): void {
  refuseNonObject(where, metadata);
  refuseUnknownOptions(where, metadata, METADATA);
  if (metadata.authorize === undefined) return;
  // A string would be read letter by letter, each letter an entry of the default policy.
  if (!Array.isArray(metadata.authorize)) throw new Error(`${where}.authorize must be an array of { policy, roles, schemes }.`);
  metadata.authorize.forEach((data: AuthorizeData, index) => {
    refuseNonObject(`${where}.authorize[${index}]`, data);
    refuseUnknownOptions(`${where}.authorize[${index}]`, data, AUTHORIZE_DATA);
    for (const list of ['roles', 'schemes'] as const) {
      if (data[list] !== undefined && !Array.isArray(data[list])) throw new Error(`${where}.authorize[${index}].${list} must be an array of names.`);
    }
  });
}

function routeName(route: RouteOptions): string {
  return `${Array.isArray(route.method) ? route.method.join(',') : route.method} ${route.url}`;
}
