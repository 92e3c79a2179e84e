import type { WebSocket as Socket } from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import { CloseCode, type FormattedExecutionResult, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer } from 'graphql-ws';
import { type GraphQLError, GraphQLError as GraphQLErrorClass, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { createContext } from '../graphql/context.ts';
import type { GraphQLService, ResultSink } from '../graphql/graphql-service.ts';
import type { Posts } from '../posts/posts.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import { type AuthenticateResult, BearerHandler, COOKIES_SCHEME } from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { UserStore } from '../store/ports.ts';

/** The close code of SPEC section 6 for a connection whose credentials no longer hold. */
const FORBIDDEN = CloseCode.Forbidden; // 4403

export interface GraphQLSocketOptions {
  readonly schema: GraphQLSchema;
  readonly graphql: GraphQLService;
  readonly bearer: BearerHandler;
  readonly revocations: RevocationList;
  readonly users: UserStore;
  readonly posts: Posts;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Whether the upgrade request's cookie session still holds (read from the store). */
  readonly sessionStillValid: (request: FastifyRequest) => Promise<boolean>;
}

/** What one connection knows of its caller, and how it re-checks them. */
interface Caller {
  principal: ClaimsPrincipal;
  /** The credential still holds (a revocation event concerned this user). */
  stillValid: () => Promise<boolean>;
  expiresAt?: number | undefined;
}

/**
 * `graphql-transport-ws` at `/graphql` (SPEC section 6). The caller is the upgrade request's
 * (the auth cookie, with the Origin checked by the route) unless `connection_init` brings
 * `{"authorization":"Bearer <jwt>"}`; invalid credentials there close the socket with 4403. Every
 * `subscribe` is prepared and authorized like an HTTP request. The socket closes with 4403 when
 * its access token expires and when a revocation event concerning its user makes the credential
 * fail (a security change, deletion, lock; for a token also a claims change).
 */
export function graphqlSocketHandler(options: GraphQLSocketOptions) {
  /** Each subscription's `next` writer, by the execution arguments graphql-ws hands back to `subscribe`. */
  const sinks = new WeakMap<object, ResultSink>();
  const server = makeServer<Record<string, unknown> | undefined, { caller: Caller; socket: Socket }>({
    schema: options.schema,
    onConnect: async (ctx) => {
      const authorization = ctx.connectionParams?.authorization;
      if (authorization === undefined) return true;
      if (typeof authorization !== 'string') return false;
      const result = await options.bearer.authenticate({ headers: { authorization } });
      if (result.kind !== 'success') return false;
      // The same object the socket's watchers hold: they now watch the token.
      Object.assign(ctx.extra.caller, bearerCaller(result, authorization, options.bearer));
      return true;
    },
    onSubscribe: (ctx, id, payload) => {
      const request = {
        query: payload.query,
        ...(payload.variables ? { variables: payload.variables } : {}),
        ...(payload.operationName ? { operationName: payload.operationName } : {}),
      };
      const prepared = options.graphql.prepare(request, ['query', 'mutation', 'subscription']);
      if (prepared.kind === 'refused') return prepared.errors.map((error) => new GraphQLErrorClass(error.message, { extensions: error.extensions ?? {} }));
      const args = {
        schema: options.schema,
        document: prepared.document,
        contextValue: createContext(ctx.extra.caller.principal, options.users, options.posts),
        variableValues: payload.variables ?? null,
        operationName: payload.operationName ?? null,
      };
      sinks.set(args, nextMessages(ctx.extra.socket, id));
      return args;
    },
    execute: (args) => options.graphql.executeArgs(args as never),
    subscribe: (args) => options.graphql.subscribeArgs(args as never, sinks.get(args)),
    // Results without errors go out as they are; errors get their codes and masking.
    onNext: (_ctx, _id, _payload, _args, result) => (result.errors?.length ? (options.graphql.format(result) as FormattedExecutionResult) : undefined),
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatted(error)),
  });

  return (socket: Socket, request: FastifyRequest): void => {
    const caller: Caller = upgradeCaller(request, options.sessionStillValid);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => socket.send(data, (error) => (error ? reject(error) : resolve()))),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (callback) =>
          socket.on('message', (data) => {
            callback(String(data)).catch((error: unknown) => {
              options.logger.warn({ err: error }, 'GraphQL socket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { caller, socket },
    );
    const forbid = () => socket.readyState === socket.OPEN && socket.close(FORBIDDEN, 'Forbidden');
    const expiry = watchExpiry(() => caller.expiresAt, options.clock, forbid);
    const stopWatching = options.revocations.onEvent((event) => {
      const userId = caller.principal.subject;
      if (userId === null || (event.kind !== 'user' && event.kind !== 'user-deleted') || event.subject !== userId) return;
      void caller.stillValid().then((valid) => valid || forbid(), forbid);
    });
    socket.once('close', (code, reason) => {
      expiry.stop();
      stopWatching();
      void closed(code, String(reason));
    });
  };
}

/**
 * Writes a subscription's results as graphql-transport-ws `next` messages around the JSON text
 * of each result, which every subscriber of a shared result gets alike: the message is put
 * together, not serialized again per subscriber. ws keeps the order of everything sent.
 */
function nextMessages(socket: Socket, id: string): ResultSink {
  const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  return (payload) => socket.send(`${head}${payload}}`);
}

/** The upgrade request's caller: a cookie session (re-checked against the store) or anonymous. */
function upgradeCaller(request: FastifyRequest, sessionStillValid: (request: FastifyRequest) => Promise<boolean>): Caller {
  const principal = request.user;
  const cookie = principal.identities.some((identity) => identity.isAuthenticated && identity.authenticationType === COOKIES_SCHEME);
  return {
    principal,
    // A cookie session ends with the security stamp: the store's session decides.
    stillValid: async () => !cookie || (await sessionStillValid(request)),
  };
}

function bearerCaller(result: Extract<AuthenticateResult, { kind: 'success' }>, authorization: string, bearer: BearerHandler): Caller {
  return {
    principal: result.principal,
    expiresAt: result.expiresAt,
    stillValid: async () => (await bearer.authenticate({ headers: { authorization } })).kind === 'success',
  };
}

/** Closes the socket when its token expires (checked each second: timers far off drift). */
function watchExpiry(expiresAt: () => number | undefined, clock: Clock, expire: () => void): { stop: () => void } {
  const timer = setInterval(() => {
    const end = expiresAt();
    if (end !== undefined && clock.now() >= end) expire();
  }, 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function formatted(error: GraphQLError): GraphQLError {
  return error.extensions?.code ? error : new GraphQLErrorClass(error.message, { ...error, extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } });
}

export { GRAPHQL_TRANSPORT_WS_PROTOCOL };
