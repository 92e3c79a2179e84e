/**
 * The Fastify plugin: Gatehouse as one application's authentication and authorization (ASP.NET's
 * `AddAuthentication` + `AddAuthorization` + `MapIdentityApi`, in one `register`).
 *
 *   const app = Fastify(serverOptions(config));
 *   await app.register(gatehouse, { settings: { publicUrl: 'https://example.com' }, policies, handlers });
 *   app.get('/invoices/:id', { config: { authorization: { authorize: [{ policy: 'Invoices' }] } } }, …);
 *
 * It builds Gatehouse's instance (hosting/gatehouse-instance.ts: the store, services, use cases,
 * policies, schemes and endpoints every host shares), then adds Fastify's part: the request
 * pipeline (request-pipeline.ts), `app.gatehouse`, and the membership, token and page routes that
 * its features turn on; the instance closes with the app. It is not encapsulated: the pipeline protects every route the application registers
 * after it, the start fails naming any route it cannot see (registered before it, or in a plugin
 * context its hooks do not reach), and `request.user` / `request.authorize` exist on every request.
 */
import type { ServerOptions } from 'node:http';
import { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { CREDENTIAL_ID_MAX_CHARS } from '../endpoints/passkeys/passkey-schemas.ts';
import { MEMBERSHIP_GROUP, type MembershipEndpoints } from '../endpoints/membership-endpoints.ts';
import { createGatehouseInstance, type GatehouseInstance, instanceInternals } from '../hosting/gatehouse-instance.ts';
import type { GatehouseInstanceOptions } from '../hosting/gatehouse-options.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { defaultSchemeChoices } from '../schemes/authentication-schemes.ts';
import { guardedHeaders } from '../security/authentication/index.ts';
import { type AuthorizationResultHandler, createProblemResultHandler } from './authorization-result-handler.ts';
import { clientErrorHandler, requestTimeouts } from '../endpoints/client-errors.ts';
import { cookieSessionCheck } from './cookie-session.ts';
import { registerEndpoints } from './endpoint-route.ts';
import { checkGatehouseOptions } from './gatehouse-option-names.ts';
import { metricsPlugin } from './metrics-plugin.ts';
import { pagesPlugin } from './pages-plugin.ts';
import { routeGroup } from './pipeline.ts';
import { jsonBodyPlugin } from './plugins/json-body.ts';
import { type OpenApiOptions, openApiPlugin } from './plugins/openapi.ts';
import { frameworkProblem, problemErrorsPlugin } from './plugins/problem-errors.ts';
import { requestLogPlugin } from './plugins/request-log.ts';
import { refusalHeaders, responseHeadersPlugin } from './plugins/response-headers.ts';
import { problem, sendProblem } from './problem.ts';
import { proxyTrust } from '../endpoints/proxy-trust.ts';
import type { RateLimitDependencies } from './rate-limit.ts';
import { requestPipeline, requestPipelinePlugin } from './request-pipeline.ts';
import { validatorsByPart } from './request-validation.ts';
import { decorateResourceChecks } from './resource-authorization.ts';
import { routeSchemeCheckPlugin } from './route-schemes.ts';

export type { GatehouseFeatures, MetricsOptions } from '../hosting/gatehouse-options.ts';

/** The options of `register(gatehouse, …)`: an instance's, and how Fastify answers refusals and documents its routes. */
export interface GatehouseOptions extends GatehouseInstanceOptions {
  /** Replaces how 401s and 403s are answered. */
  readonly resultHandler?: AuthorizationResultHandler;
  /** Serves an OpenAPI 3.1 document of the routes (at `/openapi.json` unless `path` says otherwise). @default off */
  readonly openapi?: boolean | OpenApiOptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Gatehouse's use cases, policies and the application's store; set by `register(gatehouse, …)`. */
    gatehouse: Gatehouse;
  }
}

/** How often each instance re-reads the key ring, so rotations and revocations by others arrive. */
const KEY_RING_REFRESH_MS = 2_000;

async function gatehousePlugin(app: FastifyInstance, options: GatehouseOptions): Promise<void> {
  checkGatehouseOptions(options);
  const { resultHandler, openapi, ...instanceOptions } = withoutRegistrationOptions(options);
  if (instanceOptions.features?.passkeys) checkPasskeyIdLength(app);
  const instance = await createGatehouseInstance(instanceOptions, { logger: app.log as unknown as Logger });
  try {
    await serveInstance(app, instance, { resultHandler, openapi });
    await instance.start();
  } catch (error) {
    // The registration's error is the one to report, not a failure to close.
    await instance.close().catch(() => undefined);
    throw error;
  }
  app.addHook('onClose', () => instance.close());
}

/** The instance on Fastify: `app.gatehouse`, the pages, the pipeline, resource checks, headers, metrics, OpenAPI and Gatehouse's routes. */
async function serveInstance(app: FastifyInstance, instance: GatehouseInstance, options: Pick<GatehouseOptions, 'resultHandler' | 'openapi'>): Promise<void> {
  const { gatehouse: offered, config, authorization, schemes, paths } = instance;
  const { services } = instanceInternals(instance);
  const resultHandler = options.resultHandler ?? createProblemResultHandler(paths);
  app.decorate('gatehouse', offered);
  app.addHook('onReady', async () => {
    for (const warning of instance.warnings) app.log.warn(warning);
  });
  await app.register(pagesPlugin, { rendering: instance.pages, prefix: paths.prefix });
  await app.register(problemErrorsPlugin, { resultHandler });
  await app.register(jsonBodyPlugin);
  await app.register(requestLogPlugin);
  // Draining, CORS, authentication, authorization, the cross-site check, the rate limits and
  // antiforgery, in the order of their list; before any route, which its phases decide as it is
  // registered. Routes that take forms register formBodiesPlugin.
  await app.register(requestPipelinePlugin, {
    phases: requestPipeline({
      authorization: { ...authorization, resultHandler },
      crossSite: cookieSessionCheck(config, services.clock),
      corsOrigins: config.corsOrigins,
      antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
    }),
  });
  await app.register(routeSchemeCheckPlugin, { schemes: schemes.schemes });
  decorateResourceChecks(app, offered.authorization, authorization.policies, authorization.evaluator);
  await app.register(responseHeadersPlugin, {
    production: config.production,
    credentialPaths: paths.credentialPaths,
    credentialHeaders: guardedHeaders(schemes.handlers),
  });
  // Before the routes it counts (its own among them), after those whose hooks its route needs.
  if (instance.metrics) await app.register(metricsPlugin, { metrics: instance.metrics });
  // Before the routes, which it learns as they are registered.
  if (options.openapi) {
    const defaultSchemes = defaultSchemeChoices(schemes.schemes, offered.schemes);
    await app.register(openApiPlugin, { ...(options.openapi === true ? {} : options.openapi), schemes: schemes.schemes, defaultSchemes });
  }
  const limits = { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns };
  // Not `prefix`: Fastify would mount the whole group under it, the JWKS included.
  await app.register(routeGroup(MEMBERSHIP_GROUP, membershipRoutes), { endpoints: instance.endpoints, limits, mountPoint: paths.prefix });
}

/** What Fastify's `register` reads itself (`logLevel`, `logSerializers`) is not Gatehouse's. */
function withoutRegistrationOptions(options: GatehouseOptions & { logLevel?: unknown; logSerializers?: unknown }): GatehouseOptions {
  const { logLevel: _level, logSerializers: _serializers, ...own } = options;
  return own;
}

/**
 * Fastify's default path parameter limit (100) answers 414 to `/account/passkeys/:id` for ids over
 * 75 bytes, which browsers create: their owner could never remove them.
 */
function checkPasskeyIdLength(app: FastifyInstance): void {
  const paramLimit = app.initialConfig.routerOptions?.maxParamLength ?? app.initialConfig.maxParamLength ?? 100;
  if (paramLimit < CREDENTIAL_ID_MAX_CHARS) {
    throw new Error(
      `features.passkeys needs path parameters of ${CREDENTIAL_ID_MAX_CHARS} characters (a 1,023-byte credential id) and the server allows ${paramLimit}: create it with serverOptions(), or routerOptions.maxParamLength ${CREDENTIAL_ID_MAX_CHARS}`,
    );
  }
}

/**
 * The plugin; register it (awaited) before the application's routes, at the root of the
 * application: the start fails naming a route that does not pass its pipeline.
 */
export const gatehouse = fp(gatehousePlugin, { name: 'gatehouse', fastify: '5.x' });

/**
 * Gatehouse's endpoints (endpoints/membership-endpoints.ts, the list every host serves), in a
 * group of their own: an endpoint of theirs that says nothing needs an authenticated caller
 * whatever the application's fallback policy is. The JWKS stays at the root whatever the prefix
 * (RFC 8615's well-known paths); the rest lie under it.
 */
async function membershipRoutes(
  app: FastifyInstance,
  { endpoints, limits, mountPoint }: { endpoints: MembershipEndpoints; limits: RateLimitDependencies; mountPoint: string },
): Promise<void> {
  await registerEndpoints(app, endpoints.atRoot);
  await app.register((membership) => registerEndpoints(membership, endpoints.underPrefix, { limits }), { prefix: mountPoint });
}

/**
 * The Fastify server options Gatehouse's settings call for: the body limit, request timeouts,
 * trusted proxies, problem+json for refusals made before routing, request validation (bodies
 * as sent, paths and query strings coerced: `request-validation.ts`), and request logging through
 * `logger`. Pass them to `Fastify()`; an application with options of its own spreads them in.
 */
export function serverOptions(config: Config, logger?: Logger): FastifyServerOptions & { http: ServerOptions } {
  const requestLinesLogged = logger?.isLevelEnabled('info') ?? false;
  return {
    ...(logger
      ? {
          loggerInstance: logger as FastifyBaseLogger,
          // A child logger per request (for its reqId) costs more than the whole authorization check;
          // below info level, where no request line is written, requests log through the root logger.
          childLoggerFactory: (parent, bindings, childOptions) => (requestLinesLogged ? parent.child(bindings, childOptions) : parent),
        }
      : {}),
    // Fastify's request lines carry the query string; ours (plugins/request-log.ts) do not.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    ...fastifyRequestTimeouts(config.requestTimeoutSeconds),
    clientErrorHandler: clientErrorHandler(config.production),
    // Refusals Fastify answers before routing (a malformed escape in the URL) are problem+json
    // like the rest, with the headers the onSend hook would add.
    frameworkErrors: (error, request, reply) => {
      const refusal = frameworkProblem(error);
      if (refusal === undefined) request.log.error({ err: error }, 'unexpected error');
      return sendProblem(reply.headers(refusalHeaders(config.production)), refusal ?? problem('GH_INTERNAL', (m) => m.problemInternalError));
    },
    trustProxy: proxyTrust(config.trustProxy),
    // A path parameter as long as a passkey's credential id (`/account/passkeys/:id`).
    routerOptions: { maxParamLength: CREDENTIAL_ID_MAX_CHARS },
    // Requests arriving while the app closes get the plugin's problem+json 503 (plugins/draining.ts).
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildValidator: validatorsByPart } },
  };
}

/** Node's request timeouts (endpoints/client-errors.ts) in Fastify's options. */
function fastifyRequestTimeouts(seconds: number): { requestTimeout: number; http: ServerOptions } {
  const timeouts = requestTimeouts(seconds);
  return { requestTimeout: timeouts.requestTimeout, http: timeouts };
}
