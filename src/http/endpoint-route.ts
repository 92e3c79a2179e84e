/**
 * Gatehouse's host-neutral endpoints (endpoints/) on Fastify: each becomes a route of its own,
 * with its authorization metadata in `config.authorization`, so the request pipeline protects it
 * as any route (its policy resolved when it is registered, its check run before the body is
 * read), its schemas in `schema` (Fastify validates them, the OpenAPI document lists them) and
 * its limits spread in with `rateLimited`. Endpoints that take form posts get the form parsers in
 * the scope they are registered in, and the pipeline's antiforgery phase checks them; any other
 * endpoint of that scope still answers a form with 415. Per request, the endpoint is handed the
 * Fastify request's own headers, cookies, query and parsed body, not copies.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler, preValidationHookHandler } from 'fastify';
import { parse as parseCookies } from 'cookie';
import { isFormContentType } from '../endpoints/antiforgery.ts';
import { validationErrors } from './plugins/problem-errors.ts';
import type { Endpoint, EndpointRequest, EndpointResponse } from '../endpoints/endpoint.ts';
import { endpointAnswer, invalidFormAnswer } from '../endpoints/endpoint-answer.ts';
import { GatehouseError } from '../security/errors.ts';
import { PROBLEM_JSON, type ProblemBody } from '../security/problem-details.ts';
import { languagesOf, problemText } from './problem.ts';
import { formBodiesPlugin } from './plugins/form-bodies.ts';
import { type RateLimitDependencies, rateLimited } from './rate-limit.ts';
import { replyCookies } from './reply-cookies.ts';

/** What the endpoints' limits count with; needed when one of them has limits. */
export interface EndpointRouteOptions {
  readonly limits?: RateLimitDependencies;
}

/** Registers each endpoint as a Fastify route of `app` (under its prefix). */
export async function registerEndpoints(app: FastifyInstance, endpoints: readonly Endpoint[], options: EndpointRouteOptions = {}): Promise<void> {
  if (endpoints.some((endpoint) => endpoint.forms)) await app.register(formBodiesPlugin);
  for (const endpoint of endpoints) registerEndpoint(app, endpoint, options);
}

function registerEndpoint(app: FastifyInstance, endpoint: Endpoint, { limits }: EndpointRouteOptions): void {
  const { method, path, successStatus, authorization } = endpoint;
  app.route({
    method,
    url: path,
    schema: schemaOf(endpoint),
    // A form post's invalid body reaches the handler, which answers with the endpoint's page.
    ...(endpoint.formErrors === undefined ? {} : { attachValidation: true }),
    ...(endpoint.forms ? {} : { preParsing: refuseForms }),
    ...(endpoint.absentBody === undefined ? {} : { preValidation: absentBodyHook(endpoint.absentBody) }),
    config: {
      authorization,
      ...(endpoint.groups === undefined ? {} : { groups: endpoint.groups }),
      ...(successStatus === undefined ? {} : { successStatus }),
      ...(endpoint.publicAsset === true ? { publicAsset: true } : {}),
    },
    ...limitsOf(endpoint, limits),
    handler: async (request: FastifyRequest, reply: FastifyReply) => writeResponse(reply, await answer(endpoint, endpointRequest(request, reply))),
  });
}

function schemaOf({ params, query, body }: Endpoint) {
  return { ...(params === undefined ? {} : { params }), ...(query === undefined ? {} : { querystring: query }), ...(body === undefined ? {} : { body }) };
}

/**
 * A form posted to an endpoint that takes none: 415, as where no form parser is registered, and
 * as Fastify decides it: only for a request with a body (a `GET` that names a type and sends
 * nothing is served).
 */
const refuseForms: preParsingHookHandler = (request, _reply, payload, done) => {
  if (isFormContentType(request.headers['content-type']) && hasBody(request)) {
    return done(new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotAccepted));
  }
  done(null, payload);
};

function hasBody({ headers }: FastifyRequest): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/** No body (or JSON `null`) is taken as the endpoint's `absentBody`, before validation. */
function absentBodyHook(absentBody: Readonly<Record<string, unknown>>): preValidationHookHandler {
  return (request, _reply, done) => {
    if (request.body === undefined || request.body === null) request.body = structuredClone(absentBody);
    done();
  };
}

async function answer(endpoint: Endpoint, request: EndpointRequest & { readonly validationError?: FastifyError | undefined }): Promise<EndpointResponse> {
  const invalid = request.validationError;
  if (invalid !== undefined) return (await invalidFormAnswer(endpoint, request, validationErrors(invalid))) ?? Promise.reject(invalid);
  return endpointAnswer(endpoint, request);
}

function limitsOf(endpoint: Endpoint, limits: RateLimitDependencies | undefined) {
  if (endpoint.rateLimits === undefined) return {};
  if (limits === undefined) throw new Error(`${endpoint.method} ${endpoint.path} has rate limits: registerEndpoints needs the limits' dependencies.`);
  const account = endpoint.rateLimits.account;
  return rateLimited(limits, account === undefined ? {} : { account: (request) => account(request.body, request) });
}

const NO_COOKIES: Readonly<Record<string, string | undefined>> = Object.freeze({});
const FORM = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)/i;

/** The endpoint's view of the Fastify request: its own objects, read where they are. */
function endpointRequest(request: FastifyRequest, reply: FastifyReply): EndpointRequest & { readonly validationError?: FastifyError | undefined } {
  return {
    method: request.method,
    url: request.url,
    params: request.params as EndpointRequest['params'],
    query: request.query as EndpointRequest['query'],
    headers: request.headers,
    // Parsed from the header when an endpoint reads them (the refresh cookie's two).
    get cookies() {
      return request.headers.cookie === undefined ? NO_COOKIES : parseCookies(request.headers.cookie);
    },
    ip: request.ip,
    user: request.user,
    body: request.body,
    form: FORM.test(request.headers['content-type'] ?? ''),
    authorize: (resource, policy) => request.authorize(resource, policy),
    antiforgeryToken: () => request.server.antiforgery.requestToken(request, request.user.subject, replyCookies(reply)),
    messages: () => {
      const catalogues = languagesOf(request.server);
      return catalogues.messages(catalogues.choose(request.headers['accept-language']));
    },
    statedLanguage: () => languagesOf(request.server).stated(request.headers['accept-language']),
    log: request.log,
    validationError: request.validationError as FastifyError | undefined,
  };
}

/** Writes an endpoint's answer; a problem body is sent as text in the request's language, as `sendProblem` sends it. */
export function writeResponse(reply: FastifyReply, response: EndpointResponse): FastifyReply {
  reply.code(response.status);
  if (response.headers !== undefined) for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  if (response.cookies !== undefined) {
    const cookies = replyCookies(reply);
    for (const { name, value, attributes } of response.cookies) cookies.set(name, value, attributes);
  }
  if (response.body === undefined) return reply.send();
  if (response.headers?.['content-type'] === PROBLEM_JSON) return reply.send(problemText(reply, response.body as ProblemBody));
  return reply.send(response.body);
}
