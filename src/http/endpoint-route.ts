/**
 * Gatehouse's host-neutral endpoints (endpoints/) on Fastify: each becomes a route of its own,
 * with its authorization metadata in `config.authorization`, so the request pipeline protects it
 * as any route (its policy resolved when it is registered, its check run before the body is
 * read), its body schema in `schema.body` (Fastify validates it, the OpenAPI document lists it)
 * and its limits spread in with `rateLimited`. Per request, the endpoint is handed the Fastify
 * request's own headers, cookies, query and parsed body, not copies.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint, EndpointRequest, EndpointResponse, ResponseCookie } from '../endpoints/endpoint.ts';
import { PROBLEM_JSON } from '../security/problem-details.ts';
import { type RateLimitDependencies, rateLimited } from './rate-limit.ts';

/** What the endpoints' limits count with; needed when one of them has limits. */
export interface EndpointRouteOptions {
  readonly limits?: RateLimitDependencies;
}

/** Registers each endpoint as a Fastify route of `app` (under its prefix). */
export function registerEndpoints(app: FastifyInstance, endpoints: readonly Endpoint[], options: EndpointRouteOptions = {}): void {
  for (const endpoint of endpoints) registerEndpoint(app, endpoint, options);
}

function registerEndpoint(app: FastifyInstance, endpoint: Endpoint, { limits }: EndpointRouteOptions): void {
  const { method, path, body, successStatus, authorization } = endpoint;
  app.route({
    method,
    url: path,
    ...(body === undefined ? {} : { schema: { body } }),
    config: { authorization, ...(successStatus === undefined ? {} : { successStatus }) },
    ...limitsOf(endpoint, limits),
    handler: async (request: FastifyRequest, reply: FastifyReply) => writeResponse(reply, await endpoint.handle(endpointRequest(request))),
  });
}

function limitsOf(endpoint: Endpoint, limits: RateLimitDependencies | undefined) {
  if (endpoint.rateLimits === undefined) return {};
  if (limits === undefined) throw new Error(`${endpoint.method} ${endpoint.path} has rate limits: registerEndpoints needs the limits' dependencies.`);
  const account = endpoint.rateLimits.account;
  return rateLimited(limits, account === undefined ? {} : { account: (request) => account(request.body) });
}

const NO_COOKIES: Readonly<Record<string, string | undefined>> = Object.freeze({});

/** The endpoint's view of the Fastify request: its own objects, read where they are. */
function endpointRequest(request: FastifyRequest): EndpointRequest {
  return {
    method: request.method,
    url: request.url,
    params: request.params as EndpointRequest['params'],
    query: request.query as EndpointRequest['query'],
    headers: request.headers,
    // Parsed only under the routes that register @fastify/cookie.
    cookies: (request.cookies as EndpointRequest['cookies'] | undefined) ?? NO_COOKIES,
    ip: request.ip,
    principal: request.user,
    body: request.body,
  };
}

/** Writes the endpoint's answer; a problem body is sent as text, as `sendProblem` sends it. */
function writeResponse(reply: FastifyReply, response: EndpointResponse): FastifyReply {
  reply.code(response.status);
  if (response.headers !== undefined) for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  if (response.cookies !== undefined) for (const cookie of response.cookies) setResponseCookie(reply, cookie);
  if (response.body === undefined) return reply.send();
  if (response.headers?.['content-type'] === PROBLEM_JSON) return reply.send(JSON.stringify(response.body));
  return reply.send(response.body);
}

/** A cookie of an endpoint's answer, through @fastify/cookie (registered where such endpoints are). */
export function setResponseCookie(reply: FastifyReply, { name, value, attributes }: ResponseCookie): void {
  reply.setCookie(name, value, attributes);
}
