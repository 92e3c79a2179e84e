/**
 * Gatehouse built for one application, whatever serves its requests: the store, the services and
 * the use cases, the policies and the schemes, the endpoints of its features and the pages they
 * render, and the work that runs beside the requests (the revocation feed, the key ring's
 * refresh, housekeeping). Each host's entry point makes one and adds only what its framework
 * needs: Fastify's plugin (http/app.ts) registers its pipeline and routes on it, and a host
 * without a framework serves `fetch`.
 *
 *   const instance = await createGatehouseInstance({ settings, policies, handlers });
 *   await instance.start();
 *   …
 *   await instance.close();
 *
 * Nothing here knows of a framework: the request path it gives hosts is `authorization`
 * (endpoints/authorize-endpoint.ts) and the endpoints (endpoints/membership-endpoints.ts).
 */
import type { Logger } from 'pino';
import { type Config, isIpAddress, requireMailInProduction, requireMetricsToken } from '../config/config.ts';
import { configFromSettings } from '../config/settings.ts';
import { Catalogues } from '../i18n/catalogue.ts';
import type { EndpointAuthorizationOptions } from '../endpoints/authorize-endpoint.ts';
import type { EndpointsHandler, FetchRequestOptions } from '../endpoints/fetch-handler.ts';
import { type MembershipEndpoints, membershipEndpoints, membershipEndpointsHandler, signsInWithPasswords } from '../endpoints/membership-endpoints.ts';
import { MembershipPaths } from '../endpoints/membership-paths.ts';
import { type MetricsEndpoint, metricsEndpoint } from '../endpoints/metrics-endpoint.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { attachServices } from '../gatehouse-internals.ts';
import { Mails } from '../identity/account-mail.ts';
import { reportRefusedPasswordHashes } from '../identity/refused-password-hashes.ts';
import { runningInstanceRules } from '../membership/change-rules.ts';
import { createMembership } from '../membership/membership.ts';
import { accountPaths } from '../pages/paths.ts';
import { PASSKEY_SCRIPT_FOLDER, passkeyScript, type PasskeyScript } from '../pages/passkeys/passkey-script.ts';
import { PageRendering } from '../pages/rendering.ts';
import { PAGE_ASSETS_FOLDER } from '../pages/styles/page-stylesheet.ts';
import { closeMailer } from '../platform/mail/create-mailer.ts';
import { createLogger } from '../platform/logger.ts';
import { GatehouseMetrics } from '../platform/metrics/gatehouse-metrics.ts';
import { assertPeerInstalled } from '../platform/optional-peers.ts';
import { checkReadiness } from '../platform/readiness.ts';
import { membershipHandlers } from '../policies/membership-policies.ts';
import { authenticationSchemes, type SchemeOptions } from '../schemes/authentication-schemes.ts';
import { type AuthenticationSchemeProvider, guardedHeaders, PolicyEvaluator } from '../security/authentication/index.ts';
import { AuthorizationPolicy, AuthorizationService, PolicyProvider } from '../security/authorization/index.ts';
import { createServices, type Services } from '../services.ts';
import { applicationStore } from '../store/application-store.ts';
import { createStore, storeBehind } from '../store/create-store.ts';
import type { Store } from '../store/ports.ts';
import { logAuthorizationFailure } from './authorization-log.ts';
import { DEFAULT_FEATURES, type GatehouseFeatures, type GatehouseInstanceOptions, type MetricsOptions } from './gatehouse-options.ts';
import { checkInstanceOptions } from './instance-option-names.ts';
import { checkPolicySchemes, unhandledRequirementWarnings } from './policy-checks.ts';

/** How often each instance re-reads the key ring, so rotations and revocations by others arrive. */
const KEY_RING_REFRESH_MS = 2_000;

/** How often ended refresh families and old revocation events are deleted. */
const HOUSEKEEPING_MS = 10 * 60_000;

/** What the host gives the instance besides the application's options. */
export interface InstanceHost {
  /** Where Gatehouse logs (the host's logger). @default `createLogger` with the application's schemes: credentials redacted */
  readonly logger?: Logger;
}

/** Gatehouse for one application, ready for a host to serve. */
export interface GatehouseInstance {
  /** What the application uses: the use cases, the policies, the evaluator, its store. */
  readonly gatehouse: Gatehouse;
  readonly config: Config;
  readonly features: Required<GatehouseFeatures>;
  /** What a host authenticates and authorizes each request with (`endpointAuthorization`). */
  readonly authorization: Required<EndpointAuthorizationOptions>;
  /** The registered schemes: their names, and the headers that carry their credentials. */
  readonly schemes: AuthenticationSchemeProvider;
  /** Where the membership's endpoints and pages live (the `prefix`). */
  readonly paths: MembershipPaths;
  /** The account pages with the application's page options. */
  readonly pages: PageRendering;
  /** Gatehouse's endpoints for the features that are on: those at the root, and those under the prefix. */
  readonly endpoints: MembershipEndpoints;
  /** The metrics when they are on: what each host serves at their path and tells of each request (endpoints/metrics-endpoint.ts). */
  readonly metrics: MetricsEndpoint | undefined;
  /**
   * Gatehouse's endpoints as one Web-standard `Request → Response` handler, with the pipeline's
   * phases that concern them (membershipFetchHandler): what a host without a framework serves.
   * Built when first called.
   */
  readonly fetch: EndpointsHandler;
  /** Warnings a host logs once the application is ready (policies whose requirements no handler decides). */
  readonly warnings: readonly string[];
  /** Starts the work beside the requests: the revocation feed (read once before it resolves), the key ring's refresh, housekeeping. */
  start(): Promise<void>;
  /** Stops that work and closes what the instance opened (the store it opened, Redis, the mailer). */
  close(): Promise<void>;
}

/** Internal: the services behind an instance, for the hosts in this package. */
export interface InstanceInternals {
  readonly services: Services;
  readonly passkeyScript: PasskeyScript | null;
}

const internals = new WeakMap<GatehouseInstance, InstanceInternals>();

/** The services behind `instance`, for Gatehouse's own host adapters; never exported by an entry point. */
export function instanceInternals(instance: GatehouseInstance): InstanceInternals {
  const found = internals.get(instance);
  if (found === undefined) throw new Error('This Gatehouse instance was not made by createGatehouseInstance.');
  return found;
}

/** An instance created and started (its store open, its feeds running); closed again when the start fails. For hosts that start it themselves (Express, Hono). */
export async function startGatehouseInstance(options: GatehouseInstanceOptions, host: InstanceHost = {}): Promise<GatehouseInstance> {
  const instance = await createGatehouseInstance(options, host);
  try {
    await instance.start();
  } catch (error) {
    await instance.close().catch(() => undefined);
    throw error;
  }
  return instance;
}

/**
 * Builds Gatehouse for one application: checks the options, opens the store (unless one is
 * given) and runs the migrations, then wires the services, policies, schemes and endpoints. A
 * failure closes what was opened, so that a failed start leaves no connection behind.
 */
export async function createGatehouseInstance(options: GatehouseInstanceOptions, host: InstanceHost = {}): Promise<GatehouseInstance> {
  checkInstanceOptions(options);
  // Renders the application's mail templates once: one that breaks a rule stops the start here.
  const mails = new Mails({ productName: options.pages?.productName, templates: options.mails?.templates, catalogues: new Catalogues(options.i18n) });
  const config = options.config ?? configFromSettings(options.settings);
  const features: Required<GatehouseFeatures> = { ...DEFAULT_FEATURES, ...options.features };
  // Before anything is opened: a start that cannot send its mail fails with nothing to undo.
  requireMailInProduction(config, signsInWithPasswords(features));
  checkMetricsOptions(options.metrics ?? config.metrics, config);
  if (features.passkeys && !features.cookies) {
    throw new Error('features.passkeys needs features.cookies: a passkey signs in with the auth cookie.');
  }
  if (options.store && (options.tablePrefix !== undefined || options.schema !== undefined || options.migrations !== undefined)) {
    throw new Error(
      'tablePrefix, schema and migrations are for the store Gatehouse opens; a given store carries its own: createStore(url, { tablePrefix, schema, migrations }).',
    );
  }
  const logger = host.logger ?? createLogger({ schemes: options.schemes ?? [] });
  if (options.store) return wire(options, { config, features, mails }, storeBehind(options.store), logger, async () => undefined);
  // A store opened here is the instance's: closed with it, or at once when the wiring fails.
  const store = await createStore(config.databaseUrl, {
    tablePrefix: options.tablePrefix ?? config.databaseTablePrefix,
    schema: options.schema ?? config.databaseSchema,
    ...(options.migrations ? { migrations: options.migrations } : {}),
  });
  try {
    return await wire(options, { config, features, mails }, store, logger, () => store.close());
  } catch (error) {
    // The start's error is the one to report, not a failure to close.
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** Everything but opening the store: migrations, services, policies, schemes, use cases, pages and endpoints. */
async function wire(
  options: GatehouseInstanceOptions,
  { config, features, mails }: { config: Config; features: Required<GatehouseFeatures>; mails: Mails },
  store: Store,
  logger: Logger,
  closeStore: () => Promise<void>,
): Promise<GatehouseInstance> {
  if (options.migrate !== false) await store.migrate();
  const services = await createServices(config, store, {
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onLockout ? { onLockout: options.onLockout } : {}),
    ...(options.pages?.productName ? { passkeyRpName: options.pages.productName } : {}),
    mails,
    organizations: features.organizations,
  });
  // Rows written before the caps on imported hashes existed, or by hand: told at every start.
  await reportRefusedPasswordHashes(store.users, services.logger);
  const policies = policyProvider(options);
  const handlers = [...membershipHandlers(), ...(options.handlers ?? [])];
  const authorization = new AuthorizationService({ handlers, onFailure: logAuthorizationFailure(logger) });
  const { fallbackPolicy, defaultPolicy } = options;
  const warnings = unhandledRequirementWarnings({ named: options.policies ?? {}, fallbackPolicy, defaultPolicy }, handlers);
  const schemeOptions = schemeOptionsOf(options, features);
  const schemes = authenticationSchemes(services, services.sessions, schemeOptions);
  checkPolicySchemes(options.policies ?? {}, policies, schemes.schemes);
  const paths = new MembershipPaths(options.prefix ?? '');
  const passkeys = passkeysOn(features, services);
  const metricsOptions = options.metrics ?? config.metrics;
  const metrics = metricsOptions === false ? undefined : new GatehouseMetrics(services.clock);
  const evaluator = new PolicyEvaluator(schemes, authorization);
  // The admin API and the application change users, keys and sessions with the same rules.
  const membership = createMembership(services, runningInstanceRules(services.revocationFeed));
  const gatehouse: Gatehouse = {
    config,
    store: applicationStore(store),
    users: membership.users,
    apiKeys: membership.apiKeys,
    signingKeys: membership.signingKeys,
    sessions: membership.sessions,
    organizations: membership.organizations,
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
  attachServices(gatehouse, services);
  // The login and profile pages' one script, when passkeys are on for browsers: built once, now.
  const script = passkeys && !isIpAddress(config.webauthnRpId) ? passkeyScript() : null;
  const pages = pageRendering(options, config, paths, script, mails.catalogues);
  const background = new BackgroundWork(services);
  const endpoints = membershipEndpoints({ services, membership, features, passkeys, passkeyScript: script, paths, pages });
  const serving = {
    services,
    paths,
    pages,
    policies,
    evaluator,
    verdicts: services.verdicts,
    credentialHeaders: guardedHeaders(schemes.handlers),
    // A store out of reach inside an endpoint is answered there (503), past the host's error path that counts it elsewhere.
    errorSeen: (error: unknown) => servedMetrics?.errorSeen(error),
  };
  let handler: EndpointsHandler | undefined;
  const served = () => (handler ??= membershipEndpointsHandler(endpoints, serving));
  const servedMetrics = metrics && metricsEndpoint({
    collector: metrics,
    services,
    path: typeof metricsOptions === 'object' ? metricsOptions.path : undefined,
    token: config.metricsToken,
    behindProxy: config.trustProxy !== false,
    production: config.production,
    // Gatehouse's endpoints by their patterns, on the hosts that serve them as one handler.
    endpointRoute: (method, pathname) => served().routeOf(method, pathname),
  });
  const instance: GatehouseInstance = {
    gatehouse,
    config,
    features,
    authorization: { policies, evaluator, verdicts: services.verdicts },
    schemes,
    paths,
    pages,
    endpoints,
    fetch: Object.assign((request: Request, requestOptions?: FetchRequestOptions) => served()(request, requestOptions), {
      serves: (method: string, pathname: string) => served().serves(method, pathname),
      routeOf: (method: string, pathname: string) => served().routeOf(method, pathname),
    }),
    metrics: servedMetrics,
    warnings,
    start: () => background.start(),
    close: async () => {
      servedMetrics?.close();
      await background.stop();
      await closeStore();
    },
  };
  internals.set(instance, { services, passkeyScript: script });
  return instance;
}

function schemeOptionsOf(options: GatehouseInstanceOptions, features: Required<GatehouseFeatures>): SchemeOptions {
  return {
    cookies: features.cookies,
    bearer: features.tokens,
    apiKeys: features.apiKeys,
    extra: options.schemes ?? [],
    ...(options.defaultScheme ? { defaultScheme: options.defaultScheme } : {}),
    ...(options.forwardDefaultSelector ? { forwardDefaultSelector: options.forwardDefaultSelector } : {}),
  };
}

/**
 * A form post to link a provider ends at that provider: the pages' form-action allows its origin.
 * The built-in stylesheet is served under the prefix, beside the passkey script.
 */
function pageRendering(options: GatehouseInstanceOptions, config: Config, paths: MembershipPaths, script: PasskeyScript | null, catalogues: Catalogues): PageRendering {
  const scriptTag = script === null ? null : { src: `${paths.prefix}${PASSKEY_SCRIPT_FOLDER}${script.fileName}`, integrity: script.integrity };
  return new PageRendering(options.pages, {
    formTargets: config.oidcProviders.map((provider) => provider.issuer.origin),
    production: config.production,
    paths: accountPaths(`${paths.prefix}/account`, `${paths.prefix}/orgs`),
    script: scriptTag,
    assets: `${paths.prefix}${PAGE_ASSETS_FOLDER}`,
    // The mails' catalogues: one language choice and one set of texts for the pages and the mails.
    catalogues,
  });
}

function checkMetricsOptions(metrics: boolean | MetricsOptions, config: Config): void {
  if (metrics === false) return;
  requireMetricsToken(config);
  const path = typeof metrics === 'object' ? metrics.path : undefined;
  if (path !== undefined && !/^\/[^\s?#]*$/.test(path)) throw new Error(`metrics.path must start with "/" (got "${path}").`);
}

/**
 * Whether the passkey endpoints are on: asked for, and with cookies. The reference service's
 * default `PUBLIC_URL` (`http://127.0.0.1:3000`) names an IP address, which browsers refuse as an
 * RP ID: the endpoints stay on (a client that is not a browser may use them; the contract names no
 * other answer), the pages do not offer passkeys, and the start says once why.
 */
function passkeysOn(features: Required<GatehouseFeatures>, services: Services): boolean {
  if (!features.passkeys) return false;
  if (isIpAddress(services.config.webauthnRpId)) {
    services.logger.warn(
      `passkeys: the relying party is an IP address (${services.config.webauthnRpId}, PUBLIC_URL's host), which browsers refuse, so the pages do not offer passkeys; set PUBLIC_URL to a host name (localhost in development) for passkeys in a browser`,
    );
  }
  assertPeerInstalled('@simplewebauthn/server', 'Passkeys (features.passkeys)');
  return true;
}

function policyProvider(options: GatehouseInstanceOptions): PolicyProvider<string> {
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

/** The revocation feed, the key ring's refreshes and housekeeping, and what closes with the instance. */
class BackgroundWork {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly services: Services) {}

  async start(): Promise<void> {
    const { services } = this;
    this.every(KEY_RING_REFRESH_MS, () => {
      services.keyRing.refresh().catch((error: unknown) => services.logger.warn({ err: error }, 'could not refresh the key ring'));
    });
    // A revoked signing key leaves this instance's ring at once, not at the next periodic refresh.
    services.revocations.onEvent((event) => {
      if (event.kind === 'signing-key') void services.keyRing.refresh().catch(() => undefined);
    });
    this.every(HOUSEKEEPING_MS, () => this.keepHouse());
    await services.revocationFeed.start();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const { services } = this;
    await services.revocationFeed.stop();
    await closeMailer(services.mailer);
    await services.rateLimiter.close();
    // Every client of the connection, the application's events' included (releasing one after is harmless).
    await services.redis?.close();
  }

  private every(milliseconds: number, work: () => void): void {
    const timer = setInterval(work, milliseconds);
    timer.unref();
    this.timers.push(timer);
  }

  /**
   * Deletes what no check needs any more: ended refresh families (expired or revoked; a token of
   * one is refused as unknown), grace-window successors past their window, revocation events
   * older than any instance reads back, expired cookie sessions, the spent external sign-in flows
   * whose correlation cookies have expired, and expired passkey challenges. Idempotent, so several
   * instances doing it at once is harmless.
   */
  private keepHouse(): void {
    const { store, clock, config, logger } = this.services;
    const now = clock.now();
    const eventsKeptMs = (config.accessTokenSeconds + 60) * 1000 + 10 * 60_000;
    Promise.all([
      store.refreshTokens.prune(now),
      store.revocations.prune(now - eventsKeptMs),
      store.sessions.prune(now),
      store.externalLogins.pruneSpentCorrelations(now),
      store.passkeys.pruneChallenges(now),
    ]).catch((error: unknown) => logger.warn({ err: error }, 'housekeeping failed; it runs again later'));
  }
}
