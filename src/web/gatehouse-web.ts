/**
 * Gatehouse for any runtime that speaks the Fetch API (Next.js route handlers, Bun, Deno,
 * workers): the same instance as on every host, its requests and answers Web-standard ones.
 *
 *   const auth = await gatehouse({ settings, policies, prefix: '/identity' });
 *   auth.fetch(request);                        // Gatehouse's own: sign-in, tokens, account, pages, admin
 *   const reports = auth.protect(async (request, { user, authorize }) => Response.json(…), { authorize: { policy: 'PremiumOnly' } });
 *   const caller = await auth.authenticate(request);
 *
 * Such a runtime has no routes Gatehouse could read, so each handler carries its own protection:
 * `protect(handler, { authorize | allowAnonymous })`, the fallback policy when it says neither. It
 * is decided as every host decides a route (endpoints/route-decision.ts), before the handler runs.
 */
import type { Logger } from 'pino';
import { serialize as serializeCookie } from 'cookie';
import { endpointAuthorization, type ResolvedEndpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import { cookieSessionCheck, trustedOrigins } from '../endpoints/cookie-session-check.ts';
import type { ResponseCookie } from '../endpoints/endpoint.ts';
import { knownErrorAnswer } from '../endpoints/error-answers.ts';
import { forwardedAddress } from '../endpoints/forwarded-address.ts';
import { INVALID_URL, validPercentEncoding } from '../endpoints/percent-encoding.ts';
import { type ResourceCheck, resourceChecks } from '../endpoints/resource-checks.ts';
import { secureAnswerHeaders } from '../endpoints/response-headers.ts';
import { routeDecisions } from '../endpoints/route-decision.ts';
import { routeErrorAnswer } from '../endpoints/route-error-answer.ts';
import { authorizeMetadata } from '../endpoints/route-metadata.ts';
import { type ReceivedRequest, receivedRequestOf } from '../endpoints/web-exchange.ts';
import { webRefusals } from '../endpoints/web-refusal.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { type GatehouseInstance, instanceInternals, startGatehouseInstance } from '../hosting/gatehouse-instance.ts';
import type { GatehouseInstanceOptions } from '../hosting/gatehouse-options.ts';
import { guardedHeaders } from '../security/authentication/index.ts';
import type { AuthorizationMetadata, AuthorizeData } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import { type NextRouteHandler, type NextRouteContext, nextRoute } from './next-route.ts';
import { RequestRefusal } from './request-refusal.ts';
import { webGraphQL, type WebGraphQL } from './web-graphql.ts';
import type { GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';

/** How a handler is protected: ASP.NET's `[Authorize]` and `[AllowAnonymous]`; the fallback policy when it says neither. */
export interface Protection {
  /** What the caller needs: one entry (a policy, roles, schemes), or several that must all hold. `{}` is the default policy. */
  readonly authorize?: AuthorizeData<PolicyName> | readonly AuthorizeData<PolicyName>[];
  /** Anyone may call it, whatever `authorize` says; credentials are not read, the caller is anonymous. */
  readonly allowAnonymous?: boolean;
}

/** What a protected handler is given beside the request. */
export interface Caller {
  /** The caller; an unauthenticated principal on an anonymous handler. */
  readonly user: ClaimsPrincipal;
  /** A resource check of the caller (ASP.NET's `IAuthorizationService.AuthorizeAsync`): its refusal is answered 403, or 401 for an anonymous caller. */
  readonly authorize: ResourceCheck;
}

/** A Web handler that runs once its request is decided; `args` are the runtime's own (Next's route context, a worker's `env`). */
export type ProtectedHandler<R extends Request, Args extends unknown[]> = (request: R, caller: Caller, ...args: Args) => Response | Promise<Response>;

/** Gatehouse for one application on a Fetch API runtime. */
export interface WebGatehouse {
  /** The use cases, policies and store the application uses (users, API keys, sessions, the audit trail). */
  readonly gatehouse: Gatehouse;
  /**
   * Gatehouse's endpoints as one handler: those under the `prefix` (`/auth/*`, `/account/*`,
   * `/admin/*`, `/signin-*`, the pages) and the JWKS at `/.well-known/jwks.json`. Any other
   * request is 404 problem+json. Extra arguments (a route's context) are ignored.
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * The caller of `request`: valid credentials make it, none leave it anonymous. Rejects with a
   * `RequestRefusal` (401 problem+json) for a credential that does not hold, and (403) for an
   * unsafe request the auth cookie signed in from another site; `errorResponse` answers it.
   */
  authenticate(request: Request): Promise<ClaimsPrincipal>;
  /**
   * The handler behind Gatehouse's decision: a refused request is answered 401 (a browser may be
   * sent to the login page) or 403 problem+json without running it. Its answer gets the security
   * headers (and the renewed auth cookie); what it throws is answered as `errorResponse` says.
   * An unknown policy name throws here, not at the first request.
   */
  protect<R extends Request, Args extends unknown[] = []>(handler: ProtectedHandler<R, Args>, protection?: Protection): (request: R, ...args: Args) => Promise<Response>;
  /**
   * A Next.js App Router route handler (`export const GET = auth.route(…)`): `protect` with
   * Next's `(request, { params })`, the handler's context carrying `user` and `authorize` too.
   */
  route<Params extends object = Record<string, never>, R extends Request = Request>(
    handler: NextRouteHandler<R, Params>,
    protection?: Protection,
  ): (request: R, context: NextRouteContext<Params>) => Promise<Response>;
  /**
   * The answer to an error: a `RequestRefusal` or a refused resource check as 401 or 403,
   * Gatehouse's errors and the application's `ProblemError`s as problem+json, anything else
   * logged and answered 500 problem+json.
   */
  errorResponse(error: unknown, request: Request): Response;
  /**
   * The application's schema served by Gatehouse's GraphQL endpoint, as one handler for the route
   * at its path (web-graphql.ts); its options are `gatehouseGraphQL`'s. No subscriptions: a Fetch
   * API runtime takes no upgrades.
   */
  graphql<Context extends object = object, Policy extends string = PolicyName>(options: GatehouseGraphQLOptions<Context, Policy>): Promise<WebGraphQL>;
  /** Stops the work beside the requests and closes what Gatehouse opened. */
  close(): Promise<void>;
}

/** How the Web host reads what the request itself does not say. */
export interface WebHostOptions {
  /** Where Gatehouse logs (credentials redacted by default). */
  readonly logger?: Logger;
  /**
   * The caller's address, which the sign-in limits count by. By default, under `TRUST_PROXY`,
   * read from the right of `X-Forwarded-For` (the runtime's proxy counts as the first hop);
   * otherwise none, and every caller counts as one.
   */
  readonly clientAddress?: (request: Request) => string;
}

/** Builds and starts Gatehouse for an application on a Fetch API runtime. */
export async function gatehouse(options: GatehouseInstanceOptions = {}, host: WebHostOptions = {}): Promise<WebGatehouse> {
  return onWeb(await startGatehouseInstance(options, host), host);
}

function onWeb(instance: GatehouseInstance, host: WebHostOptions): WebGatehouse {
  const { config, authorization, paths } = instance;
  const { services } = instanceInternals(instance);
  for (const warning of instance.warnings) services.logger.warn(warning);
  const checks = resourceChecks(authorization);
  const loginPage = (returnUrl: string) => paths.loginFor(returnUrl);
  const cookieSession = cookieSessionCheck({ trustedOrigins: trustedOrigins(config), production: config.production, clock: instance.gatehouse.clock });
  const decide = routeDecisions({ cookieSession, loginPage });
  const refuse = webRefusals(instance.pages, paths.prefix);
  const errorOptions = { log: services.logger, loginPage };
  const headerOptions = { production: config.production, credentialHeaders: guardedHeaders(instance.schemes.handlers) };
  const forwarded = forwardedAddress(config.trustProxy);
  const addressOf = host.clientAddress ?? ((request: Request) => forwarded(request.headers));
  const received = (request: Request, url = new URL(request.url)): ReceivedRequest => receivedRequestOf(request, url, addressOf(request));
  // Valid credentials make the caller, a presented one that does not hold is refused, none leave it anonymous.
  const caller = endpointAuthorization(authorization, { authorization: { allowAnonymous: true }, readCredentials: true });

  const errorResponse = (error: unknown, request: ReceivedRequest): Response =>
    error instanceof RequestRefusal ? refuse(error.answer, request) : refuse(routeErrorAnswer(error, () => request, errorOptions), request);

  const protect: WebGatehouse['protect'] = (handler, protection = {}) => {
    const resolved = resolvedProtection(protection);
    return async (request, ...args) => {
      const url = new URL(request.url);
      const exchange = received(request, url);
      // A path that is not valid percent-encoding is the caller's error, as on every host.
      if (!validPercentEncoding(url.pathname)) return secured(refuse(INVALID_URL_ANSWER, exchange), exchange);
      try {
        const decision = await decide(resolved, exchange);
        if (decision.kind === 'refused') return secured(refuse(decision.response, exchange), exchange);
        const answer = await handler(request, { user: decision.principal, authorize: checks.checkFor(decision.principal, exchange) }, ...args);
        return secured(answer, exchange, decision.renewed);
      } catch (error) {
        return secured(errorResponse(error, exchange), exchange);
      }
    };
  };

  /** The protection's decision, resolved once: an unknown policy name throws where the handler is protected. */
  function resolvedProtection({ authorize, allowAnonymous }: Protection): ResolvedEndpointAuthorization {
    const entries = authorize === undefined ? [] : Array.isArray(authorize) ? (authorize as readonly AuthorizeData<PolicyName>[]) : [authorize as AuthorizeData<PolicyName>];
    for (const entry of entries) if (typeof entry.policy === 'string') authorization.policies.get(entry.policy);
    const metadata: AuthorizationMetadata<PolicyName> | undefined =
      authorize === undefined && allowAnonymous !== true ? undefined : { ...(authorize === undefined ? {} : authorizeMetadata(entries)), ...(allowAnonymous === true ? { allowAnonymous } : {}) };
    return endpointAuthorization(authorization, metadata === undefined ? {} : { authorization: metadata });
  }

  /** Every answer of a protected handler, refusals included (docs/reference/http.md), with the renewed auth cookie. */
  const secured = (answer: Response, request: ReceivedRequest, renewed?: ResponseCookie): Response =>
    withHeaders(answer, (headers) => {
      secureAnswerHeaders(headers, request.headers, headerOptions);
      if (renewed !== undefined) headers.append('set-cookie', serializeCookie(renewed.name, renewed.value, renewed.attributes));
    });

  return {
    gatehouse: instance.gatehouse,
    fetch: (request) => instance.fetch(request, { ip: addressOf(request) }),
    authenticate: async (request) => {
      const decision = await decide(caller, received(request));
      if (decision.kind === 'refused') throw new RequestRefusal(decision.response);
      return decision.principal;
    },
    protect,
    route: (handler, protection) => nextRoute(protect, handler, protection),
    errorResponse: (error, request) => errorResponse(error, received(request)),
    graphql: (options) => webGraphQL(instance.gatehouse, options, addressOf),
    close: () => instance.close(),
  };
}

/**
 * Headers set on an answer; on a copy when its own are immutable (`Response.redirect`, a
 * response passed on from `fetch`).
 */
function withHeaders(answer: Response, set: (headers: Headers) => void): Response {
  try {
    set(answer.headers);
    return answer;
  } catch {
    const copy = new Response(answer.body, answer);
    set(copy.headers);
    return copy;
  }
}

const INVALID_URL_ANSWER = knownErrorAnswer(INVALID_URL)!.response;
