import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { GraphQLEndpoint } from './graphql-endpoint.ts';

/** The anonymous-but-reading-credentials endpoint of docs/reference/graphql.md (see pipeline.ts). */
const ENDPOINT_CONFIG = { authorization: { allowAnonymous: true }, readCredentials: true };

/**
 * The GraphQL endpoint on Fastify at its path (docs/reference/graphql.md): POST and GET, graphql-ws
 * on GET's upgrade, and 405 for other methods before any body is read. Invalid credentials were
 * refused with 401 by the pipeline; anonymous callers get field errors.
 */
export async function graphqlTransport(app: FastifyInstance, endpoint: GraphQLEndpoint, { bodyLimitBytes }: { readonly bodyLimitBytes: number }): Promise<void> {
  const { path } = endpoint;
  const answer = async (request: FastifyRequest, reply: FastifyReply, body?: unknown) =>
    write(
      reply,
      await endpoint.answer({
        method: request.method,
        headers: request.headers,
        // Schemes read the query as sent (a record of strings), which Fastify types as unknown.
        query: request.query as AuthenticationRequest['query'] & object,
        body,
        user: callerOf(request),
        credentials: request as FastifyRequest<{ Querystring: AuthenticationRequest['query'] }>,
      }),
    );

  app.route({
    method: ['PUT', 'DELETE', 'PATCH'],
    url: path,
    config: { authorization: { allowAnonymous: true } },
    onRequest: async (request, reply) => answer(request, reply),
    handler: async () => undefined,
  });

  app.post(path, { config: ENDPOINT_CONFIG }, async (request, reply) => answer(request, reply, request.body));

  // The socket plugin's hooks (on every request of its scope) stay off POST: GET, the route that
  // upgrades, has a scope of its own.
  await app.register(async (scope) => {
    // Before the WebSocket plugin's own preClose, which would close the sockets without a code.
    scope.addHook('preClose', async () => endpoint.closeSockets(scope.websocketServer.clients));
    await scope.register(fastifyWebsocket, { options: { maxPayload: bodyLimitBytes } });
    scope.route({
      method: 'GET',
      url: path,
      config: ENDPOINT_CONFIG,
      preValidation: async (request, reply) => {
        if (request.headers.upgrade?.toLowerCase() !== 'websocket') return;
        const refusal = endpoint.upgradeRefusal(callerOf(request), request.headers);
        if (refusal !== null) await write(reply, refusal);
      },
      wsHandler: (socket, request) => endpoint.openSocket(socket, upgradeOf(request)),
      handler: async (request, reply) => answer(request, reply),
    });
  });
}

/** The upgrade request as schemes read it. */
function upgradeOf(request: FastifyRequest): AuthenticationRequest {
  const { headers, method, url, ip } = request;
  return { headers, method, url, ip, query: request.query as AuthenticationRequest['query'] };
}

function write(reply: FastifyReply, answer: EndpointResponse): FastifyReply {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
  return reply.send(answer.body);
}

/**
 * The caller the Fastify host's pipeline put on the request (its `request.user`), read without the
 * host's type augmentation: this module stands beside src/http, and a program that compiles the
 * GraphQL entry without it (an application on another host) must still compile it.
 */
function callerOf(request: FastifyRequest): ClaimsPrincipal {
  return (request as FastifyRequest & { readonly user: ClaimsPrincipal }).user;
}
