import type { FastifyInstance, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Resolved at registration: this endpoint's answers are never stored by a browser or a proxy. */
    noStore?: boolean;
  }
}

/** One year, subdomains included: once a browser has seen the service over https, it never tries http. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * The headers of an answer written outside the routes' hooks (Fastify's refusals before routing,
 * Node's client errors): every header of docs/reference/http.md, `no-store` included, since whether the
 * request carried credentials is not known there.
 */
export function refusalHeaders(production: boolean): Readonly<Record<string, string>> {
  return {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...(production ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
  };
}

export interface ResponseHeadersOptions {
  /** Production answers carry `Strict-Transport-Security` (PUBLIC_URL is https there). */
  readonly production: boolean;
  /**
   * Endpoints under these paths issue or manage credentials, whatever the request carries
   * (`MembershipPaths.credentialPaths`: `/auth/`, `/account/`, `/signin-` under the prefix).
   */
  readonly credentialPaths: readonly string[];
  /**
   * The headers that carry credentials, in lower case: the contract's (Authorization, X-Api-Key,
   * Cookie) and those the registered schemes declare they read.
   */
  readonly credentialHeaders: readonly string[];
}

/**
 * The headers docs/reference/http.md puts on answers, in one hook for every route, every error and the
 * 404: `X-Content-Type-Options: nosniff` on all of them (a JSON answer is never run as script or
 * style), `Strict-Transport-Security` in production, and `Cache-Control: no-store` on every
 * answer to a request that carries credentials (an Authorization, X-Api-Key or Cookie header, or
 * one a scheme of the application declares) or to an endpoint that needs or issues them: a shared cache or the browser's history must
 * never keep an answer about someone. The endpoint's part is decided once, when it is
 * registered (after the pipeline has resolved its policy); per request it is a few header
 * look-ups. Answers written outside the routes' hooks (Node's 408, 431 and malformed HTTP, in
 * client-errors.ts; Fastify's refusals before routing) carry `refusalHeaders` instead.
 */
async function responseHeaders(app: FastifyInstance, options: ResponseHeadersOptions): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    const credentialPath = options.credentialPaths.some((prefix) => route.url.startsWith(prefix));
    const protectedRoute = route.config?.policy !== undefined && route.config.policy !== null;
    route.config = { ...route.config, noStore: credentialPath || protectedRoute || route.config?.readCredentials === true };
  });

  const hsts = options.production;
  const { credentialHeaders } = options;
  const addHeaders: onSendHookHandler = (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (hsts) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    if (carriesCredentials(request, credentialHeaders) || request.routeOptions.config?.noStore === true) reply.header('cache-control', 'no-store');
    done(null, payload);
  };
  app.addHook('onSend', addHeaders);
}

function carriesCredentials(request: FastifyRequest, names: readonly string[]): boolean {
  const { headers } = request;
  for (let i = 0; i < names.length; i++) if (headers[names[i]!] !== undefined) return true;
  return false;
}

export const responseHeadersPlugin = fp(responseHeaders, { name: 'gatehouse-response-headers', fastify: '5.x', dependencies: ['gatehouse-pipeline'] });
