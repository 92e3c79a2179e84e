/**
 * The request pipeline, in the one place that orders it:
 *
 *   routing ──► authentication ──► authorization ──► cross-site ──► body parsing ──► validation ──► endpoint
 *   (404)       (scheme results)    (401/403/302)     (403, cookie    (400/413/415)   (400)           (2xx, 404, 409)
 *                                                      callers only)
 *
 * Authentication and authorization run in an `onRequest` hook of each route, before the body is read,
 * so a caller without the right credentials learns nothing from body errors. Anonymous endpoints
 * skip authentication entirely: credentials sent to them are not evaluated.
 *
 * Each route's policy is resolved once, when the route is registered (`onRoute`): the endpoint's
 * metadata beats its group's, and routes that say nothing get the fallback policy. An unknown
 * policy name stops the start-up.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { PolicyName } from './policy-names.ts';
import {
  type AuthorizationMetadata,
  type AuthorizationPolicy,
  type PolicyProvider,
  resolveEndpointPolicy,
} from '../security/authorization/index.ts';
import type { AuthenticationRequest, PolicyEvaluator } from '../security/authentication/index.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import { andThen, isPromise, type MaybePromise } from '../security/maybe-async.ts';
import { type AuthorizationResultHandler, problemResultHandler } from './authorization-result-handler.ts';
import type { AuthorizedCheck } from './cookie-session.ts';
import { checkAuthorizationMetadata } from './route-schemes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller; an unauthenticated principal on anonymous endpoints. */
    user: ClaimsPrincipal;
  }
  interface FastifyContextConfig {
    /** What this endpoint says about its protection. */
    authorization?: AuthorizationMetadata<PolicyName>;
    /** Resolved at registration: the policy to run, or null for an anonymous endpoint. */
    policy?: AuthorizationPolicy | null;
    /**
     * An anonymous endpoint that still reads credentials (GraphQL, whose fields carry their own
     * policies): valid ones become the caller, invalid ones are refused with 401 before the
     * endpoint runs, none leave the caller anonymous.
     */
    readCredentials?: boolean;
  }
}

type RouteContextLike = object;

/** Group metadata, keyed by the encapsulated instance its routes are registered on. */
const groups = new WeakMap<FastifyInstance, AuthorizationMetadata<PolicyName>>();

/**
 * The metadata of the nearest group `instance` lies in. A plugin registered inside a group gets a
 * child instance of its own, made from the group's with `Object.create` (Fastify's encapsulation),
 * so the group is found up the prototype chain: its protection reaches the routes of every plugin
 * nested in it, and a group nested in another speaks for its own routes.
 */
function groupOf(instance: FastifyInstance): AuthorizationMetadata<PolicyName> | undefined {
  for (let scope: object | null = instance; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const metadata = groups.get(scope as FastifyInstance);
    if (metadata !== undefined) return metadata;
  }
  return undefined;
}

/** Registers `routes` as a group whose metadata applies to each route that says nothing itself. */
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

export interface PipelineOptions {
  readonly policies: PolicyProvider<string>;
  readonly evaluator: PolicyEvaluator;
  readonly resultHandler?: AuthorizationResultHandler;
  /**
   * Runs after a request is authorized and before the endpoint (the cookie scheme's cross-site
   * check and cookie renewal, http/cookie-session.ts); false when it answered the request.
   */
  readonly authorized?: AuthorizedCheck;
}

async function pipeline(app: FastifyInstance, options: PipelineOptions): Promise<void> {
  const { policies, evaluator } = options;
  const resultHandler = options.resultHandler ?? problemResultHandler;
  const authorized = options.authorized;
  const anonymous = ClaimsPrincipal.anonymous();

  app.decorateRequest('user', null as unknown as ClaimsPrincipal);

  /** Anonymous endpoints: credentials are not even read. */
  const anonymousHook: onRequestHookHandler = (request, _reply, done) => {
    request.user = anonymous;
    done();
  };

  /**
   * The hook of an endpoint with a policy, built once per route with the policy in hand. A
   * callback hook, not an async one: with a remembered token and handlers that decide on the
   * spot, the whole check completes in this tick without a promise.
   */
  const authorizeHook =
    (policy: AuthorizationPolicy): onRequestHookHandler =>
    (request, reply, done) => {
      // Go on only when authorized; a refused request has been answered by the result handler.
      // (Callbacks stay inline: named per-request closures cost more than the check itself.)
      let outcome: MaybePromise<boolean>;
      try {
        outcome = authorizeRequest(policy, request, reply);
      } catch (error) {
        return done(error as Error);
      }
      goOnWhen(outcome, done);
    };

  /** True when the request may go on; otherwise it has been answered (401 or 403). */
  function authorizeRequest(policy: AuthorizationPolicy, request: FastifyRequest, reply: FastifyReply): MaybePromise<boolean> {
    return andThen(evaluator.authenticate(policy, authenticationRequest(request)), (authentication) => {
      request.user = authentication.principal;
      return andThen(evaluator.authorize(policy, authentication), (result) => {
        // Authorized: a request the cookie authenticated is then checked for cross-site origin.
        if (result.kind === 'success') return authorized === undefined || authorized(request, reply, authentication);
        if (result.kind === 'challenge') resultHandler.challenge(request, reply, authentication);
        else resultHandler.forbid(request, reply, result.schemes);
        return false;
      });
    });
  }

  /** Anonymous endpoints that read credentials: a presented credential must be valid. */
  const readCredentialsHook: onRequestHookHandler = (request, reply, done) => {
    let outcome: MaybePromise<boolean>;
    try {
      outcome = andThen(evaluator.authenticate(null, authenticationRequest(request)), (authentication) => {
        request.user = authentication.principal;
        // A cookie caller is checked for cross-site origin here as on any protected endpoint.
        if (authentication.succeeded) return authorized === undefined || authorized(request, reply, authentication);
        if (authentication.attempts.every(({ result }) => result.kind !== 'fail')) return true;
        resultHandler.challenge(request, reply, authentication);
        return false;
      });
    } catch (error) {
      return done(error as Error);
    }
    goOnWhen(outcome, done);
  };

  // Each route's policy is resolved when it is registered and its check attached to the route
  // itself, ahead of any hook the route brings: nothing is looked up per request.
  app.addHook('onRoute', function attachPolicy(this: FastifyInstance, route: RouteOptions) {
    // CORS preflights carry no credentials by design: OPTIONS routes are anonymous (docs/reference/configuration.md).
    const group = groupOf(this);
    const endpoint = route.config?.authorization;
    const policy = isOptionsOnly(route) ? null : routePolicy(route, () => resolveEndpointPolicy(policies, endpoint, group));
    // Without a fallback policy (ASP.NET's default), a route that says nothing is open, yet its
    // caller is still known: credentials are read, and presented ones must be valid.
    const unprotected = policy === null && !isOptionsOnly(route) && !endpoint?.allowAnonymous && !group?.allowAnonymous;
    route.config = { ...route.config, policy };
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    const hook = policy ? authorizeHook(policy) : route.config.readCredentials || unprotected ? readCredentialsHook : anonymousHook;
    route.onRequest = [hook, ...own];
  });
}

export const pipelinePlugin = fp(pipeline, { name: 'gatehouse-pipeline', fastify: '5.x' });

/** The route's policy; an unknown policy name stops the start naming the route that asked for it. */
function routePolicy(route: RouteOptions, resolve: () => AuthorizationPolicy | null): AuthorizationPolicy | null {
  try {
    return resolve();
  } catch (error) {
    const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
    throw new Error(`${methods} ${route.url}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Lets the request go on when the check says so, at once when it decided in this tick. A refused
 * request has been answered already; an error goes to Fastify's error handler.
 */
function goOnWhen(outcome: MaybePromise<boolean>, done: (error?: Error) => void): void {
  if (!isPromise(outcome)) {
    if (outcome) done();
    return;
  }
  outcome.then(
    (allowed) => {
      if (allowed) done();
    },
    (error: Error) => done(error),
  );
}

function isOptionsOnly(route: RouteOptions): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.every((method) => method === 'OPTIONS');
}

/**
 * The request as schemes read it. Node keeps only the first of repeated Authorization headers;
 * a proxy may have judged another one, so a repeated header is handed over as an array, which
 * the Bearer scheme refuses as malformed.
 */
export function authenticationRequest(request: FastifyRequest): AuthenticationRequest {
  if (request.headers.authorization === undefined) return request;
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (isAuthorization(raw[i]!)) count++;
  if (count < 2) return request;
  const values = raw.filter((_, i) => i % 2 === 1 && isAuthorization(raw[i - 1]!));
  return { headers: { ...request.headers, authorization: values }, ip: request.ip };
}

/** A raw header name, any case; the usual spellings are matched without lower-casing a copy. */
function isAuthorization(name: string): boolean {
  return name === 'authorization' || name === 'Authorization' || (name.length === 13 && name.toLowerCase() === 'authorization');
}

/** The caller's user id (`sub`), for endpoints whose policy guarantees one. */
export function userIdOf(request: FastifyRequest): number {
  const subject = request.user.subject;
  if (subject === null) throw new Error('This endpoint needs a policy that requires a user.');
  return Number(subject);
}
