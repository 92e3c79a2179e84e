/**
 * Authentication, authorization and the cross-site check: three phases of the request pipeline
 * (request-pipeline.ts, which orders them among the others), run by one check per route:
 *
 *   authentication ──► authorization ──► cross-site
 *   (scheme results)    (401/403/302)     (403, cookie callers only)
 *
 * They run in `onRequest`, before the body is read, so a caller without the right credentials
 * learns nothing from body errors. Anonymous endpoints skip authentication entirely: credentials
 * sent to them are not evaluated.
 *
 * Each route's policy is resolved once, when the route is registered (`onRoute`): the endpoint's
 * `authorize` entries and those of every group around it combine, `allowAnonymous` on the endpoint
 * beats them, and routes that say nothing get the fallback policy. The check so decided is kept
 * in the route's config, and one hook of the application's runs it: the application's own hooks
 * registered after Gatehouse find `request.user` set. An unknown policy name stops the start-up,
 * and so does a route of the application that none of this passes (one registered before the
 * pipeline or where its hooks cannot reach it: route-registry.ts).
 */
import { repeatedAuthorization } from '../endpoints/repeated-authorization.ts';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import {
  type EndpointAuthorization,
  type EndpointAuthorizationOptions,
  type EndpointAuthorizer,
  endpointAuthorization,
  type EndpointRecognizer,
  type ResolvedEndpointAuthorization,
} from '../endpoints/authorize-endpoint.ts';
import type { AuthorizationMetadata, AuthorizationPolicy } from '../security/authorization/index.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import { type AuthorizationResultHandler, problemResultHandler, renderRefusal } from './authorization-result-handler.ts';
import type { AuthorizedCheck } from './cookie-session.ts';
import type { ApplicationPhase } from './request-pipeline.ts';
import { describeRoutes, recordFromNow, registeredRoutes } from './route-registry.ts';
import { checkAuthorizationMetadata } from './route-schemes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller; an unauthenticated principal on anonymous endpoints. */
    user: ClaimsPrincipal;
  }
  interface FastifyContextConfig {
    /** What this endpoint says about its protection. */
    authorization?: AuthorizationMetadata<PolicyName>;
    /** Groups it lies in besides those of the plugins around it, nearest first (a neutral endpoint's `groups`). */
    groups?: readonly AuthorizationMetadata<PolicyName>[];
    /** Resolved at registration: the policy to run, or null for an anonymous endpoint. */
    policy?: AuthorizationPolicy | null;
    /**
     * An anonymous endpoint that still reads credentials (GraphQL, whose fields carry their own
     * policies): valid ones become the caller, invalid ones are refused with 401 before the
     * endpoint runs, none leave the caller anonymous.
     */
    readCredentials?: boolean;
    /** Decided at registration: the route's check, which the pipeline's hook runs. */
    [ROUTE_CHECK]?: RouteCheck;
  }
}

/** Where a route's check is kept in its config: a symbol, out of the application's way. */
const ROUTE_CHECK: unique symbol = Symbol('gatehouse.routeCheck');

/** Authentication, authorization and the cross-site check of one route, as a callback hook. */
type RouteCheck = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

type RouteContextLike = object;

/** Group metadata, keyed by the encapsulated instance its routes are registered on. */
const groups = new WeakMap<FastifyInstance, AuthorizationMetadata<PolicyName>>();

/**
 * The metadata of every group `instance` lies in, nearest first. A plugin registered inside a
 * group gets a child instance of its own, made from the group's with `Object.create` (Fastify's
 * encapsulation), so the groups are found up the prototype chain: a group's protection reaches the
 * routes of every plugin nested in it, and a group nested in another adds its rules to the outer one's.
 */
function groupsOf(instance: FastifyInstance): AuthorizationMetadata<PolicyName>[] {
  const found: AuthorizationMetadata<PolicyName>[] = [];
  for (let scope: object | null = instance; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const metadata = groups.get(scope as FastifyInstance);
    if (metadata !== undefined) found.push(metadata);
  }
  return found;
}

/**
 * Registers `routes` as a group (ASP.NET's `MapGroup(…).RequireAuthorization(…)`): its `authorize`
 * entries apply to each of its routes, beside the route's own and those of groups around it;
 * its `allowAnonymous` opens the routes that ask for nothing themselves.
 */
export function routeGroup<Options extends Record<string, unknown> | RouteContextLike>(
  metadata: AuthorizationMetadata<PolicyName>,
  routes: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  checkAuthorizationMetadata('routeGroup', metadata);
  return async (instance, options) => {
    groups.set(instance, metadata);
    await routes(instance, options);
  };
}

export interface RouteCheckOptions extends EndpointAuthorizationOptions {
  readonly resultHandler?: AuthorizationResultHandler;
  /**
   * Runs after a request is authorized and before the endpoint (the cookie scheme's cross-site
   * check and cookie renewal, http/cookie-session.ts); false when it answered the request.
   */
  readonly authorized?: AuthorizedCheck;
}

/**
 * The pipeline's authentication, authorization and cross-site phases: each route's check,
 * decided when it is registered, and the application's hook that runs it.
 */
export function routeChecks(options: RouteCheckOptions): ApplicationPhase {
  const resultHandler = options.resultHandler ?? problemResultHandler;
  const authorized = options.authorized;
  const anonymous = ClaimsPrincipal.anonymous();

  /** Anonymous endpoints: credentials are not even read. */
  const anonymousHook: RouteCheck = (request, _reply, done) => {
    request.user = anonymous;
    done();
  };

  /**
   * The hook of a route that reads credentials, built once per route with its authorizer in hand.
   * It goes on when the request is authorized; otherwise it answers (401, 403 or the login
   * redirect). Authorized, a request the auth cookie authenticated is then checked for its origin.
   * A caller recognized at once (its token or key accepted before, a policy on the principal
   * alone: most requests of a client) goes on without a promise; any other waits for the authorizer's.
   */
  const authorizeHook =
    (authorize: EndpointAuthorizer, recognize: EndpointRecognizer | null): RouteCheck =>
    (request, reply, done) => {
      const received = authenticationRequest(request);
      let known: EndpointAuthorization | undefined;
      try {
        known = recognize?.(received);
      } catch (error) {
        return done(error as Error);
      }
      if (known !== undefined) return proceed(request, reply, known, done);
      authorize(received).then((authorization) => proceed(request, reply, authorization, done), done);
    };

  /** Goes on with an authorized request; answers any other. */
  function proceed(request: FastifyRequest, reply: FastifyReply, authorization: EndpointAuthorization, done: (error?: Error) => void): void {
    let allowed: boolean;
    try {
      allowed = settle(request, reply, authorization);
    } catch (error) {
      return done(error as Error);
    }
    if (allowed) done();
  }

  /** True when the request may go on; otherwise it has been answered. */
  function settle(request: FastifyRequest, reply: FastifyReply, { principal, outcome, authentication }: EndpointAuthorization): boolean {
    request.user = principal;
    if (outcome.kind !== 'success') {
      renderRefusal(resultHandler, request, reply, outcome);
      return false;
    }
    return authorized === undefined || authentication === undefined || authorized(request, reply, authentication);
  }

  /**
   * The route's check, from one hook of the application's: Fastify runs a route's own hooks after
   * the application's, and the application's hooks registered after Gatehouse read `request.user`.
   * A request no route matched (the 404 handler) has no check and an anonymous caller.
   */
  const checkRoute: onRequestHookHandler = (request, reply, done) => {
    const check = request.routeOptions.config[ROUTE_CHECK];
    if (check !== undefined) return check(request, reply, done);
    request.user = anonymous;
    done();
  };

  return {
    scope: 'application',
    prepare(app) {
      app.decorateRequest('user', null as unknown as ClaimsPrincipal);
      refuseRoutesOutside(app);
    },
    // Each route's policy is resolved when it is registered and its check kept in the route's
    // config: per request, nothing is looked up but that config.
    forRoute(route, instance) {
      // CORS preflights carry no credentials by design: OPTIONS routes are anonymous (docs/reference/configuration.md).
      // The one decision of every host (endpoints/authorize-endpoint.ts): the route's policy, or
      // none; without a fallback policy (ASP.NET's default) a route that says nothing is open, yet
      // its caller is still known: credentials are read, and presented ones must be valid.
      const groups = [...(route.config?.groups ?? []), ...groupsOf(instance)];
      const protection = { authorization: route.config?.authorization, groups, readCredentials: route.config?.readCredentials === true };
      const { policy, authorize, recognize } = isOptionsOnly(route) ? OPTIONS_ROUTE : routePolicy(route, () => endpointAuthorization(options, protection));
      const check = authorize === null ? anonymousHook : authorizeHook(authorize, recognize);
      pipelineChecks.add(check);
      route.config = { ...route.config, policy, [ROUTE_CHECK]: check };
    },
    register(app) {
      app.addHook('onRequest', checkRoute);
    },
  };
}

/** A CORS preflight's route: anonymous, whatever its group says. */
const OPTIONS_ROUTE: ResolvedEndpointAuthorization = Object.freeze({ policy: null, authorize: null, recognize: null });

/** The checks of any pipeline: a route without one is served outside it. */
const pipelineChecks = new WeakSet<RouteCheck>();

/**
 * Stops the start when a route of the application does not pass a pipeline: registered before
 * it (or while an un-awaited `register(gatehouse)` was still pending), in a plugin context its
 * hooks cannot reach, or stripped of its check by a later `onRoute` hook that replaced its
 * config. Such a route would be served to anyone, whatever its `authorize` says.
 */
function refuseRoutesOutside(app: FastifyInstance): void {
  const routes = registeredRoutes(app) ?? recordFromNow(withoutEarlierRoutes(app));
  app.addHook('onReady', async function refuseRoutesOutsideThePipeline() {
    const outside = routes.filter((route) => !isPipelineCheck(route.config?.[ROUTE_CHECK]));
    if (outside.length === 0) return;
    throw new Error(
      `These routes would be served without authentication or authorization, outside Gatehouse's pipeline: ${describeRoutes(outside).join('; ')}. ` +
        `${REGISTER_FIRST}`,
    );
  });
}

const REGISTER_FIRST =
  'Register Gatehouse before any route, at the root of the application (await app.register(gatehouse, …)), and the routes after it; a route that needs no caller says allowAnonymous.';

/**
 * An application created before Gatehouse was loaded has no record of its earlier routes: there
 * must be none yet (Fastify's route tree names them otherwise).
 */
function withoutEarlierRoutes(app: FastifyInstance): FastifyInstance {
  const tree = app.printRoutes({ commonPrefix: false });
  if (tree.trim() !== '(empty tree)') {
    throw new Error(`These routes were registered before Gatehouse, outside its pipeline, and would be served to anyone:\n${tree}${REGISTER_FIRST}`);
  }
  return app;
}

function isPipelineCheck(check: RouteCheck | undefined): boolean {
  return check !== undefined && pipelineChecks.has(check);
}

/** The route's protection; an unknown policy name stops the start naming the route that asked for it. */
function routePolicy(route: RouteOptions, resolve: () => ResolvedEndpointAuthorization): ResolvedEndpointAuthorization {
  try {
    return resolve();
  } catch (error) {
    const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
    throw new Error(`${methods} ${route.url}: ${(error as Error).message}`, { cause: error });
  }
}

function isOptionsOnly(route: RouteOptions): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.every((method) => method === 'OPTIONS');
}

/**
 * The request as schemes read it: the Fastify request itself, whose headers, cookies, address,
 * method, target and query (parsed as sent: authentication runs before validation) are what
 * schemes read, so nothing is copied per request; a repeated Authorization header as an array
 * (endpoints/repeated-authorization.ts).
 */
export function authenticationRequest(request: FastifyRequest): AuthenticationRequest {
  const asSent = request as FastifyRequest<{ Querystring: AuthenticationRequest['query'] }>;
  if (request.headers.authorization === undefined) return asSent;
  const values = repeatedAuthorization(request.raw.rawHeaders);
  if (values === undefined) return asSent;
  const { ip, method, url, query } = asSent;
  return { headers: { ...request.headers, authorization: values }, ip, method, url, query };
}

/** The caller's user id (`sub`), for endpoints whose policy guarantees one. */
export function userIdOf(request: FastifyRequest): number {
  const subject = request.user.subject;
  if (subject === null) throw new Error('This endpoint needs a policy that requires a user.');
  return Number(subject);
}
