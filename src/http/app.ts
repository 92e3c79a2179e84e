/**
 * The Fastify plugin: Gatehouse as one application's authentication and authorization (ASP.NET's
 * `AddAuthentication` + `AddAuthorization` + `MapIdentityApi`, in one `register`).
 *
 *   const app = Fastify(serverOptions(config));
 *   await app.register(gatehouse, { settings: { publicUrl: 'https://example.com' }, policies, handlers });
 *   app.get('/invoices/:id', { config: { authorization: { authorize: [{ policy: 'Invoices' }] } } }, …);
 *
 * It wires the membership services over one store, the schemes, the policies and the request
 * pipeline (request-pipeline.ts), and registers the membership, token and page routes that its features
 * turn on. It is not encapsulated: the pipeline protects every route the application registers
 * after it, the start fails naming any route it cannot see (registered before it, or in a plugin
 * context its hooks do not reach), and `request.user` / `request.authorize` exist on every request.
 */
import type { ServerOptions } from 'node:http';
import { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { type Config, isIpAddress, requireMailInProduction, requireMetricsToken } from '../config/config.ts';
import { configFromSettings, type GatehouseSettings } from '../config/settings.ts';
import type { AccountLockoutOptions } from '../identity/lockout.ts';
import { reportRefusedPasswordHashes } from '../identity/refused-password-hashes.ts';
import type { Clock } from '../platform/clock.ts';
import { closeMailer } from '../platform/mail/create-mailer.ts';
import { checkReadiness } from '../platform/readiness.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { attachServices } from '../gatehouse-internals.ts';
import { runningInstanceRules } from '../membership/change-rules.ts';
import { createMembership, type Membership } from '../membership/membership.ts';
import { applicationStore, type OwnedStore } from '../store/application-store.ts';
import {
  type AuthenticationHandler,
  type ForwardDefaultSelector,
  guardedHeaders,
  PolicyEvaluator,
} from '../security/authentication/index.ts';
import {
  type AuthorizationHandler,
  AuthorizationPolicy,
  AuthorizationService,
  PolicyProvider,
} from '../security/authorization/index.ts';
import { createServices, type Services } from '../services.ts';
import type { ApplicationMigrations } from '../store/application-database.ts';
import { createStore, storeBehind } from '../store/create-store.ts';
import { GatehouseMetrics } from '../platform/metrics/gatehouse-metrics.ts';
import { checkGatehouseOptions } from './gatehouse-option-names.ts';
import { checkPolicySchemes, routeSchemeCheckPlugin } from './route-schemes.ts';
import { DEFAULT_METRICS_PATH, metricsPlugin } from './metrics-plugin.ts';
import { validatorsByPart } from './request-validation.ts';
import { logAuthorizationFailure } from './authorization-log.ts';
import type { Store } from '../store/ports.ts';
import { authenticationSchemes, defaultSchemeChoices, type SchemeOptions } from '../schemes/authentication-schemes.ts';
import { type AuthorizationResultHandler, createProblemResultHandler } from './authorization-result-handler.ts';
import { MembershipPaths } from '../endpoints/membership-paths.ts';
import { clientErrorHandler } from './client-errors.ts';
import { cookieSessionCheck } from './cookie-session.ts';
import { membershipHandlers } from '../policies/membership-policies.ts';
import { pagesPlugin } from './pages-plugin.ts';
import type { PageOptions } from '../pages/rendering.ts';
import { routeGroup } from './pipeline.ts';
import { requestPipeline, requestPipelinePlugin } from './request-pipeline.ts';
import { proxyTrust } from './proxy-trust.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { jsonBodyPlugin } from './plugins/json-body.ts';
import { frameworkProblem, problemErrorsPlugin } from './plugins/problem-errors.ts';
import { requestLogPlugin } from './plugins/request-log.ts';
import { type OpenApiOptions, openApiPlugin } from './plugins/openapi.ts';
import { refusalHeaders, responseHeadersPlugin } from './plugins/response-headers.ts';
import { problem, sendProblem } from './problem.ts';
import { decorateResourceChecks } from './resource-authorization.ts';
import { warnOfUnhandledRequirements } from './unhandled-requirements-warning.ts';
import { passkeyScript, type PasskeyScript } from '../pages/passkeys/passkey-script.ts';
import { CREDENTIAL_ID_MAX_CHARS } from '../endpoints/passkeys/passkey-schemas.ts';
import { assertPeerInstalled } from '../platform/optional-peers.ts';
import { MEMBERSHIP_GROUP, type MembershipEndpoints, membershipEndpoints, signsInWithPasswords } from '../endpoints/membership-endpoints.ts';
import { registerEndpoints } from './endpoint-route.ts';
import type { RateLimitDependencies } from './rate-limit.ts';

/** Which parts of Gatehouse an application turns on; all of them by default. */
export interface GatehouseFeatures {
  /** Cookie sign-in, its pages and the `Cookies` scheme. @default true */
  readonly cookies?: boolean;
  /** Access and refresh tokens (`/auth/token`, `/auth/refresh`, the JWKS) and the `Bearer` scheme. @default true */
  readonly tokens?: boolean;
  /** The `ApiKey` scheme (`X-Api-Key`). @default true */
  readonly apiKeys?: boolean;
  /** Sign-in with the OpenID providers of `settings.oidc`. @default true */
  readonly externalLogins?: boolean;
  /** The admin API (`/admin/*`, role `Admin`). @default true */
  readonly admin?: boolean;
  /** Two-factor sign-in and its account routes. @default true */
  readonly twoFactor?: boolean;
  /**
   * Passkeys (WebAuthn): sign-in with a passkey and the signed-in user's passkeys (docs/passkeys.md).
   * Needs `cookies` and the @simplewebauthn/server package. Browsers need a host name for
   * `WEBAUTHN_RP_ID` (by default `PUBLIC_URL`'s host: with an IP address there, only clients that
   * are not browsers can use them, as the start warns once).
   * @default false
   */
  readonly passkeys?: boolean;
  /**
   * "Where you are signed in": `/account/sessions` (the user's cookie sessions and refresh
   * families, each of which it can end), its part of the profile page, and, with `admin`,
   * `/admin/users/:id/sessions`. @default true
   */
  readonly sessions?: boolean;
}

/** The options of `register(gatehouse, …)`. */
export interface GatehouseOptions {
  /** Settings in code; or `config` read from the environment with `loadConfig()`. */
  readonly settings?: GatehouseSettings;
  /** The configuration read by `loadConfig()` (the environment variables); beats `settings`. */
  readonly config?: Config;
  /** An open store (the application's, from `createStore`); else one is opened on `settings.databaseUrl` and closed with the app. */
  readonly store?: OwnedStore;
  /** The table prefix of the store the plugin opens (`'gh_'`: `gh_users`, …); a given `store` carries its own. @default settings' `databaseTablePrefix`, else '' */
  readonly tablePrefix?: string;
  /** PostgreSQL: the schema of the store the plugin opens, created by its migration; a given `store` carries its own. @default settings' `databaseSchema` */
  readonly schema?: string;
  /**
   * The application's own migrations, for the store the plugin opens (a given `store` carries
   * its own: `createStore(url, { migrations })`): run after Gatehouse's, on the same connections;
   * the application reaches its tables through `app.gatehouse.store.database`.
   */
  readonly migrations?: ApplicationMigrations;
  /** Run the store's migrations at start. @default true */
  readonly migrate?: boolean;
  readonly features?: GatehouseFeatures;
  /** The application's named policies (declare their names in `GatehousePolicies`). */
  readonly policies?: Readonly<Record<PolicyName, AuthorizationPolicy>>;
  /** The application's requirement handlers, beside Gatehouse's own. */
  readonly handlers?: readonly AuthorizationHandler[];
  /**
   * The policy of routes that say nothing: a name, a policy, or `null` for none (such routes are
   * open, yet read the caller's credentials). @default an authenticated user
   */
  readonly fallbackPolicy?: PolicyName | AuthorizationPolicy | null;
  /** The policy of an `authorize` entry that names neither policy nor roles. @default an authenticated user */
  readonly defaultPolicy?: PolicyName | AuthorizationPolicy;
  /** The application's own authentication schemes, beside (or, by name, instead of) Gatehouse's. */
  readonly schemes?: readonly AuthenticationHandler[];
  /** The scheme of routes that name none; @default by the request's shape: Bearer, then ApiKey, then Cookies */
  readonly defaultScheme?: string;
  /**
   * Chooses, per request and per socket, the scheme of routes that name none (ASP.NET's
   * `ForwardDefaultSelector`), from its headers, cookies, method, target and query; when it
   * answers undefined, `defaultScheme` (or the request's shape) decides. A name that is not
   * registered fails the request (500). @default none
   */
  readonly forwardDefaultSelector?: ForwardDefaultSelector;
  /**
   * Where the membership, token and page routes are mounted (`/auth/*`, `/account/*`,
   * `/admin/*`, `/signin-*`): `''` (the reference service's paths, the default) or a path such
   * as `/identity`. Links in mails, form actions, redirects and the refresh cookie's Path follow.
   */
  readonly prefix?: string;
  /** Replaces how 401s and 403s are answered. */
  readonly resultHandler?: AuthorizationResultHandler;
  /** The pages' product name, title, stylesheet and renderers (`docs/pages.md`). */
  readonly pages?: PageOptions;
  /** Serves an OpenAPI 3.1 document of the routes (at `/openapi.json` unless `path` says otherwise). @default off */
  readonly openapi?: boolean | OpenApiOptions;
  /**
   * Prometheus metrics at `/metrics` (or `path`), for loopback callers and for the bearer of the
   * `METRICS_TOKEN` setting (docs/operations.md); `true` or an object turns them on. Needs the
   * prom-client package. @default the `METRICS` setting (off)
   */
  readonly metrics?: boolean | MetricsOptions;
  /** The clock of lifetimes, lockouts and time-based policies. @default the system clock */
  readonly clock?: Clock;
  /** Hears of each lockout instead of the default notice mail to the account's owner. */
  readonly onLockout?: AccountLockoutOptions['onLockout'];
}

export interface MetricsOptions {
  /** Where the metrics are served. @default '/metrics' */
  readonly path?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Gatehouse's use cases, policies and the application's store; set by `register(gatehouse, …)`. */
    gatehouse: Gatehouse;
  }
}

/** Every feature is on unless the application turns it off, but passkeys, which it turns on. */
const DEFAULT_FEATURES: Required<GatehouseFeatures> = {
  cookies: true,
  tokens: true,
  apiKeys: true,
  externalLogins: true,
  admin: true,
  twoFactor: true,
  passkeys: false,
  sessions: true,
};

/** How often each instance re-reads the key ring, so rotations and revocations by others arrive. */
const KEY_RING_REFRESH_MS = 2_000;

async function gatehousePlugin(app: FastifyInstance, options: GatehouseOptions): Promise<void> {
  checkGatehouseOptions(options);
  const config = options.config ?? configFromSettings(options.settings);
  const features: Required<GatehouseFeatures> = { ...DEFAULT_FEATURES, ...options.features };
  // Before anything is opened: a start that cannot send its mail fails with nothing to undo.
  requireMailInProduction(config, signsInWithPasswords(features));
  checkMetricsOptions(options.metrics ?? config.metrics, config);
  if (options.store && (options.tablePrefix !== undefined || options.schema !== undefined || options.migrations !== undefined)) {
    throw new Error(
      'tablePrefix, schema and migrations are for the store Gatehouse opens; a given store carries its own: createStore(url, { tablePrefix, schema, migrations }).',
    );
  }
  if (options.store) return wireGatehouse(app, options, config, features, storeBehind(options.store));
  // A store opened here is the plugin's: closed with the app, or at once when the registration
  // fails, so that a failed start leaves no connection behind. The application's is its own.
  const store = await createStore(config.databaseUrl, {
    tablePrefix: options.tablePrefix ?? config.databaseTablePrefix,
    schema: options.schema ?? config.databaseSchema,
    ...(options.migrations ? { migrations: options.migrations } : {}),
  });
  try {
    await wireGatehouse(app, options, config, features, store);
  } catch (error) {
    // The registration's error is the one to report, not a failure to close.
    await store.close().catch(() => undefined);
    throw error;
  }
  app.addHook('onClose', () => store.close());
}

/** Everything but opening the store: migrations, services, policies, schemes, pipeline and routes. */
async function wireGatehouse(
  app: FastifyInstance,
  options: GatehouseOptions,
  config: Config,
  features: Required<GatehouseFeatures>,
  store: Store,
): Promise<void> {
  if (options.migrate !== false) await store.migrate();
  const services = await createServices(config, store, {
    logger: app.log as unknown as Logger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onLockout ? { onLockout: options.onLockout } : {}),
    ...(options.pages?.productName ? { passkeyRpName: options.pages.productName } : {}),
  });
  // Rows written before the caps on imported hashes existed, or by hand: told at every start.
  await reportRefusedPasswordHashes(store.users, services.logger);
  const policies = policyProvider(options);
  const handlers = [...membershipHandlers(), ...(options.handlers ?? [])];
  const authorization = new AuthorizationService({ handlers, onFailure: logAuthorizationFailure(app.log) });
  const { fallbackPolicy, defaultPolicy } = options;
  warnOfUnhandledRequirements(app, { named: options.policies ?? {}, fallbackPolicy, defaultPolicy }, handlers);
  const schemeOptions: SchemeOptions = {
    cookies: features.cookies,
    bearer: features.tokens,
    apiKeys: features.apiKeys,
    extra: options.schemes ?? [],
    ...(options.defaultScheme ? { defaultScheme: options.defaultScheme } : {}),
    ...(options.forwardDefaultSelector ? { forwardDefaultSelector: options.forwardDefaultSelector } : {}),
  };
  const schemes = authenticationSchemes(services, services.sessions, schemeOptions);
  checkPolicySchemes(options.policies ?? {}, policies, schemes.schemes);
  const paths = new MembershipPaths(options.prefix ?? '');
  const passkeys = passkeysOn(features, services, app);
  const resultHandler = options.resultHandler ?? createProblemResultHandler(paths);
  const metricsOptions = options.metrics ?? config.metrics;
  const metrics = metricsOptions === false ? undefined : new GatehouseMetrics(services.clock);
  const evaluator = new PolicyEvaluator(schemes, authorization);
  // The admin API and the application change users, keys and sessions with the same rules.
  const membership = createMembership(services, runningInstanceRules(services.revocationFeed));
  const offered: Gatehouse = {
    config,
    store: applicationStore(store),
    users: membership.users,
    apiKeys: membership.apiKeys,
    signingKeys: membership.signingKeys,
    sessions: membership.sessions,
    audit: membership.auditTrail,
    outbox: { list: (query) => store.outbox.list(query) },
    authorization,
    evaluator,
    policies,
    clock: services.clock,
    schemes: schemeOptions,
    redis: services.redis,
    readiness: () => checkReadiness(store, services.redis, services.revocations),
    metrics,
  };
  attachServices(offered, services);
  app.decorate('gatehouse', offered);

  // A form post to link a provider ends at that provider: the pages' form-action allows its origin.
  // The login and profile pages' one script, when passkeys are on for browsers: built once, now.
  const script = passkeys && !isIpAddress(services.config.webauthnRpId) ? passkeyScript() : null;
  await app.register(pagesPlugin, {
    options: options.pages,
    formTargets: config.oidcProviders.map((provider) => provider.issuer.origin),
    production: config.production,
    paths,
    passkeyScript: script,
  });
  await app.register(problemErrorsPlugin, { resultHandler });
  await app.register(jsonBodyPlugin);
  await app.register(requestLogPlugin);
  // Draining, CORS, authentication, authorization, the cross-site check, the rate limits and
  // antiforgery, in the order of their list; before any route, which its phases decide as it is
  // registered. Routes that take forms register formBodiesPlugin.
  await app.register(requestPipelinePlugin, {
    phases: requestPipeline({
      authorization: { policies, evaluator, resultHandler, verdicts: services.verdicts },
      crossSite: cookieSessionCheck(config, services.clock),
      corsOrigins: config.corsOrigins,
      antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
    }),
  });
  await app.register(routeSchemeCheckPlugin, { schemes: schemes.schemes });
  decorateResourceChecks(app, authorization, policies, evaluator);
  await app.register(responseHeadersPlugin, {
    production: config.production,
    credentialPaths: paths.credentialPaths,
    credentialHeaders: guardedHeaders(schemes.handlers),
  });
  // Before the routes it counts (its own among them), after those whose hooks its route needs.
  if (metrics) {
    const path = (typeof metricsOptions === 'object' ? metricsOptions.path : undefined) ?? DEFAULT_METRICS_PATH;
    await app.register(metricsPlugin, { metrics, services, path, token: config.metricsToken, behindProxy: config.trustProxy !== false });
  }
  // Before the routes, which it learns as they are registered.
  if (options.openapi) {
    const defaultSchemes = defaultSchemeChoices(schemes.schemes, schemeOptions);
    await app.register(openApiPlugin, { ...(options.openapi === true ? {} : options.openapi), schemes: schemes.schemes, defaultSchemes });
  }
  const endpoints = membershipEndpoints({ services, membership, features, passkeys, passkeyScript: script, paths, pages: app.pages });
  const limits = { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns };
  // Not `prefix`: Fastify would mount the whole group under it, the JWKS included.
  await app.register(routeGroup(MEMBERSHIP_GROUP, membershipRoutes), { endpoints, limits, mountPoint: paths.prefix });
  await startBackgroundWork(app, services);
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

function checkMetricsOptions(metrics: boolean | MetricsOptions, config: Config): void {
  if (metrics === false) return;
  requireMetricsToken(config);
  const path = typeof metrics === 'object' ? metrics.path : undefined;
  if (path !== undefined && !/^\/[^\s?#]*$/.test(path)) throw new Error(`metrics.path must start with "/" (got "${path}").`);
}

/**
 * Whether the passkey routes are on: asked for, and with cookies. The reference service's default
 * `PUBLIC_URL` (`http://127.0.0.1:3000`) names an IP address, which browsers refuse as an RP ID:
 * the routes stay on (a client that is not a browser may use them; the contract names no other
 * answer), the pages do not offer passkeys, and the start says once why.
 */
function passkeysOn(features: Required<GatehouseFeatures>, services: Services, app: FastifyInstance): boolean {
  if (!features.passkeys) return false;
  if (!features.cookies) throw new Error('features.passkeys needs features.cookies: a passkey signs in with the auth cookie.');
  // Fastify's default (100) answers 414 to `/account/passkeys/:id` for ids over 75 bytes, which
  // browsers create: their owner could never remove them.
  const paramLimit = app.initialConfig.routerOptions?.maxParamLength ?? app.initialConfig.maxParamLength ?? 100;
  if (paramLimit < CREDENTIAL_ID_MAX_CHARS) {
    throw new Error(
      `features.passkeys needs path parameters of ${CREDENTIAL_ID_MAX_CHARS} characters (a 1,023-byte credential id) and the server allows ${paramLimit}: create it with serverOptions(), or routerOptions.maxParamLength ${CREDENTIAL_ID_MAX_CHARS}`,
    );
  }
  if (isIpAddress(services.config.webauthnRpId)) {
    services.logger.warn(
      `passkeys: the relying party is an IP address (${services.config.webauthnRpId}, PUBLIC_URL's host), which browsers refuse, so the pages do not offer passkeys; set PUBLIC_URL to a host name (localhost in development) for passkeys in a browser`,
    );
  }
  assertPeerInstalled('@simplewebauthn/server', 'Passkeys (features.passkeys)');
  return true;
}

function policyProvider(options: GatehouseOptions): PolicyProvider<string> {
  const named: Readonly<Record<string, AuthorizationPolicy>> = options.policies ?? {};
  const resolve = (policy: string | AuthorizationPolicy) => {
    if (policy instanceof AuthorizationPolicy) return policy;
    const found = named[policy];
    if (!found) throw new Error(`No authorization policy is named "${policy}".`);
    return found;
  };
  return new PolicyProvider<string>({
    policies: named,
    ...(options.defaultPolicy !== undefined ? { defaultPolicy: resolve(options.defaultPolicy) } : {}),
    ...(options.fallbackPolicy !== undefined ? { fallbackPolicy: options.fallbackPolicy === null ? null : resolve(options.fallbackPolicy) } : {}),
  });
}

/** The revocation feed, key-ring refreshes, housekeeping, and what closes with the app. */
async function startBackgroundWork(app: FastifyInstance, services: Services): Promise<void> {
  refreshKeyRingPeriodically(app, services);
  // A revoked signing key leaves this instance's ring at once, not at the next periodic refresh.
  services.revocations.onEvent((event) => {
    if (event.kind === 'signing-key') void services.keyRing.refresh().catch(() => undefined);
  });
  await services.revocationFeed.start();
  app.addHook('onClose', () => services.revocationFeed.stop());
  app.addHook('onClose', () => closeMailer(services.mailer));
  app.addHook('onClose', () => services.rateLimiter.close());
  // Every client of the connection, the application's events' included (releasing one after is harmless).
  app.addHook('onClose', async () => services.redis?.close());
  keepHouse(app, services);
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
    ...requestTimeouts(config.requestTimeoutSeconds),
    clientErrorHandler: clientErrorHandler(config.production),
    // Refusals Fastify answers before routing (a malformed escape in the URL) are problem+json
    // like the rest, with the headers the onSend hook would add.
    frameworkErrors: (error, request, reply) => {
      const refusal = frameworkProblem(error);
      if (refusal === undefined) request.log.error({ err: error }, 'unexpected error');
      return sendProblem(reply.headers(refusalHeaders(config.production)), refusal ?? problem('GH_INTERNAL', 'Something went wrong on our side.'));
    },
    trustProxy: proxyTrust(config.trustProxy),
    // A path parameter as long as a passkey's credential id (`/account/passkeys/:id`).
    routerOptions: { maxParamLength: CREDENTIAL_ID_MAX_CHARS },
    // Requests arriving while the app closes get the plugin's problem+json 503 (plugins/draining.ts).
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildValidator: validatorsByPart } },
  };
}

/**
 * Node's limits on how long a request may take to arrive (`REQUEST_TIMEOUT_SECONDS`): headers
 * and body both within the timeout, else 408 and the connection closes; a body trickled a byte at
 * a time holds a connection no longer than that. Node checks its connections periodically (every
 * 30 s by default, which would let a slow request live up to twice the timeout): here at least
 * every second. An upgraded WebSocket has left the HTTP parser and is not cut.
 */
function requestTimeouts(seconds: number): { requestTimeout: number; http: ServerOptions } {
  const milliseconds = Math.ceil(seconds * 1000);
  return {
    requestTimeout: milliseconds,
    http: { requestTimeout: milliseconds, headersTimeout: milliseconds, connectionsCheckingInterval: Math.min(1000, milliseconds) },
  };
}

/** How often ended refresh families and old revocation events are deleted. */
const HOUSEKEEPING_MS = 10 * 60_000;

/**
 * Deletes what no check needs any more: ended refresh families (expired or revoked; a token of
 * one is refused as unknown), grace-window successors past their window, and revocation events
 * older than any instance reads back, expired cookie sessions, the spent external sign-in
 * flows whose correlation cookies have expired, and expired passkey challenges. Idempotent, so several
 * instances doing it at once is harmless.
 */
function keepHouse(app: FastifyInstance, services: Services): void {
  const { store, clock, config } = services;
  const timer = setInterval(() => {
    const now = clock.now();
    const eventsKeptMs = (config.accessTokenSeconds + 60) * 1000 + 10 * 60_000;
    Promise.all([
      store.refreshTokens.prune(now),
      store.revocations.prune(now - eventsKeptMs),
      store.sessions.prune(now),
      store.externalLogins.pruneSpentCorrelations(now),
      store.passkeys.pruneChallenges(now),
    ]).catch(
      (error: unknown) => app.log.warn({ err: error }, 'housekeeping failed; it runs again later'),
    );
  }, HOUSEKEEPING_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

function refreshKeyRingPeriodically(app: FastifyInstance, services: Services): void {
  const timer = setInterval(() => {
    services.keyRing.refresh().catch((error: unknown) => app.log.warn({ err: error }, 'could not refresh the key ring'));
  }, KEY_RING_REFRESH_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
