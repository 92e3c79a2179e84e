import type { FastifyInstance, onSendHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { carriesCredentials, isNoStoreEndpoint, type ResponseHeadersOptions, STRICT_TRANSPORT_SECURITY } from '../../endpoints/response-headers.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Resolved at registration: this endpoint's answers are never stored by a browser or a proxy. */
    noStore?: boolean;
    /** The same bytes for everyone, named by their content (`Endpoint.publicAsset`): never `no-store`. */
    publicAsset?: boolean;
  }
}

export { refusalHeaders, type ResponseHeadersOptions, STRICT_TRANSPORT_SECURITY } from '../../endpoints/response-headers.ts';

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
    const readsCredentials = (route.config?.policy !== undefined && route.config.policy !== null) || route.config?.readCredentials === true;
    route.config = { ...route.config, noStore: isNoStoreEndpoint(route.url, readsCredentials, options.credentialPaths) };
  });

  const hsts = options.production;
  const { credentialHeaders } = options;
  const addHeaders: onSendHookHandler = (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (hsts) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    const config = request.routeOptions.config;
    if (config?.publicAsset === true) return done(null, payload);
    if (carriesCredentials(request.headers, credentialHeaders) || config?.noStore === true) reply.header('cache-control', 'no-store');
    done(null, payload);
  };
  app.addHook('onSend', addHeaders);
}


export const responseHeadersPlugin = fp(responseHeaders, { name: 'gatehouse-response-headers', fastify: '5.x', dependencies: ['gatehouse-pipeline'] });
