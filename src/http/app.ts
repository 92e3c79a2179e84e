import type { ServerOptions } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { createAuthorizationService, createPolicyProvider } from '../policies/policies.ts';
import { PolicyEvaluator } from '../security/authentication/index.ts';
import type { PolicyProvider } from '../security/authorization/index.ts';
import { closeMailer } from '../platform/mail/create-mailer.ts';
import type { Services } from '../services.ts';
import type { AuthorizationResultHandler } from './authorization-result-handler.ts';
import { pipelinePlugin, routeGroup } from './pipeline.ts';
import { antiforgeryPlugin } from './antiforgery.ts';
import { authenticationSchemes } from './authentication-schemes.ts';
import { pageHeaders } from './pages/html.ts';
import { clientErrorHandler } from './client-errors.ts';
import { cookieSessionCheck } from './cookie-session.ts';
import { jsonBodyPlugin } from './plugins/json-body.ts';
import { frameworkProblem, problemErrorsPlugin } from './plugins/problem-errors.ts';
import { problem, sendProblem } from './problem.ts';
import { refusalHeaders, responseHeadersPlugin } from './plugins/response-headers.ts';
import { requestLogPlugin } from './plugins/request-log.ts';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import { accountRoutes } from './routes/account.ts';
import { accountRegistrationRoutes } from './routes/account-registration.ts';
import { accountTwoFactorRoutes } from './routes/account-two-factor.ts';
import { graphiqlRoutes } from './routes/graphiql.ts';
import { postsGraphQL } from '../../server/posts/posts-graphql.ts';
import { externalLoginRoutes } from './routes/external-login.ts';
import { adminRoutes } from './routes/admin.ts';
import { authRefreshRoutes } from './routes/auth-refresh.ts';
import { authTokenRoutes } from './routes/auth-token.ts';
import { contentRoutes } from './routes/content.ts';
import { documentRoutes } from './routes/documents.ts';
import { healthRoutes } from './routes/health.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { meRoutes } from './routes/me.ts';
import { organizationRoutes } from './routes/orgs.ts';
import type { RouteContext } from './routes/route-context.ts';
import { wellKnownRoutes } from './routes/well-known.ts';

/** What Gatehouse's plugins that extend an application (GraphQL) read from the instance. */
export interface GatehouseDecoration extends RouteContext {
  readonly policies: PolicyProvider<string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Gatehouse's services, authorization engine and policies, for gatehouse-auth/graphql. */
    readonly gatehouse: GatehouseDecoration;
  }
}

export interface AppOptions {
  /** Replaces how 401s and 403s are answered. */
  readonly resultHandler?: AuthorizationResultHandler;
}

/** How often each instance re-reads the key ring, so rotations and revocations by others arrive. */
const KEY_RING_REFRESH_MS = 2_000;

/** The HTTP service over the domain services: schemes, policies, the pipeline, and the routes. */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, logger } = services;
  const requestLinesLogged = logger.isLevelEnabled('info');
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Fastify's request lines carry the query string; ours (plugins/request-log.ts) do not.
    logController: new LogController({ disableRequestLogging: true }),
    // A child logger per request (for its reqId) costs more than the whole authorization check;
    // below info level, where no request line is written, requests log through the root logger.
    childLoggerFactory: (parent, bindings, options) =>
      requestLinesLogged ? parent.child(bindings, options) : parent,
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
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true } },
  });

  const policies = createPolicyProvider(config);
  const authorization = createAuthorizationService(services.clock, config.timeZone);
  const schemes = authenticationSchemes(services);
  const context: RouteContext = { services, authorization };
  app.decorate('gatehouse', { ...context, policies });

  // A form post to link a provider ends at that provider: the pages' form-action allows its origin.
  app.decorate('pageHeaders', pageHeaders(config.oidcProviders.map((provider) => provider.issuer.origin)));
  await app.register(problemErrorsPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(requestLogPlugin);
  // The antiforgery check of form posts; routes that take forms register formBodiesPlugin.
  await app.register(antiforgeryPlugin, { secret: services.keyRing.secrets.antiforgery, production: config.production });
  await app.register(pipelinePlugin, {
    policies,
    evaluator: new PolicyEvaluator(schemes, authorization),
    ...(options.resultHandler ? { resultHandler: options.resultHandler } : {}),
    authorized: cookieSessionCheck(config, services.clock),
  });
  await app.register(responseHeadersPlugin, { production: config.production });

  if (config.corsOrigins.length > 0) {
    // Browsers on the listed origins may call the API, with credentials; others get no CORS
    // headers at all (the plugin would otherwise allow credentials to every origin it refuses).
    const listed = new Set(config.corsOrigins);
    await app.register(fastifyCors, {
      delegator: (request, callback) =>
        callback(null, listed.has(request.headers.origin ?? '') ? { origin: true, credentials: true, maxAge: 600 } : { origin: false }),
    });
  }
  await app.register(healthRoutes);
  await app.register(wellKnownRoutes, context);
  await app.register(async (auth) => {
    // Only the token endpoints read or write cookies (gh.refresh), so only they pay for parsing them.
    await auth.register(fastifyCookie);
    await auth.register(authTokenRoutes, context);
    await auth.register(authRefreshRoutes, context);
  });
  await app.register(routeGroup({ authorize: [{ policy: 'AdminOnly' }] }, adminRoutes), context);
  await app.register(accountRoutes, context);
  await app.register(accountRegistrationRoutes, context);
  await app.register(accountTwoFactorRoutes, context);
  await app.register(meRoutes);
  await app.register(contentRoutes);
  await app.register(routeGroup({ authorize: [{ policy: 'User' }] }, documentRoutes), context);
  await app.register(organizationRoutes, context);
  await app.register(integrationRoutes);
  await app.register(postsGraphQL, { store: services.store, clock: services.clock, redisUrl: config.redisUrl, logger });
  // GraphiQL in development only: production has no such route (404, SPEC section 6).
  if (!config.production) await app.register(graphiqlRoutes);
  await app.register(externalLoginRoutes, context);

  refreshKeyRingPeriodically(app, services);
  // A revoked signing key leaves this instance's ring at once, not at the next periodic refresh.
  services.revocations.onEvent((event) => {
    if (event.kind === 'signing-key') void services.keyRing.refresh().catch(() => undefined);
  });
  await services.revocationFeed.start();
  app.addHook('onClose', () => services.revocationFeed.stop());
  app.addHook('onClose', () => closeMailer(services.mailer));
  app.addHook('onClose', () => services.rateLimiter.close());
  keepHouse(app, services);
  return app;
}

/**
 * Node's limits on how long a request may take to arrive (SPEC section 1,
 * `REQUEST_TIMEOUT_SECONDS`): headers and body both within the timeout, else 408 and the
 * connection closes; a body trickled a byte at a time holds a connection no longer than that.
 * Node checks its connections periodically (every 30 s by default, which would let a slow
 * request live up to twice the timeout): here at least every second. An upgraded WebSocket has
 * left the HTTP parser and is not cut.
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
 * older than any instance reads back, and expired cookie sessions. Idempotent, so several
 * instances doing it at once is harmless.
 */
function keepHouse(app: FastifyInstance, services: Services): void {
  const { store, clock, config } = services;
  const timer = setInterval(() => {
    const now = clock.now();
    const eventsKeptMs = (config.accessTokenSeconds + 60) * 1000 + 10 * 60_000;
    Promise.all([store.refreshTokens.prune(now), store.revocations.prune(now - eventsKeptMs), store.sessions.prune(now)]).catch(
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
