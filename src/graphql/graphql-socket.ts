import type { WebSocket as Socket } from 'ws';
import { CloseCode, type Context, type FormattedExecutionResult, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer } from 'graphql-ws';
import { type GraphQLError, GraphQLError as GraphQLErrorClass } from 'graphql';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import { SocketCredential } from '../schemes/socket-credential.ts';
import type { OperationContext } from './context.ts';
import { graphqlError } from './errors.ts';
import type { EventDelivery, GraphQLService, OperationArgs } from './graphql-service.ts';
import { MessageBudget } from './message-budget.ts';
import { callerOf, type SocketCallerOptions, socketCallers } from './socket-caller.ts';
import { SocketCounts } from './socket-counts.ts';

/** RFC 6455's "going away": the server is shutting down, and the client may reconnect (to another instance). */
const GOING_AWAY = 1001;
/** docs/reference/graphql.md: the socket's unsent data passed `GRAPHQL_MAX_SOCKET_BUFFER_BYTES` (graphql-ws clients reconnect). */
const SLOW_CONSUMER = 4408;
/** docs/reference/graphql.md: too many sockets of the caller or its address, or too many messages (graphql-ws clients give up). */
const TOO_MANY = 4429;
/** How long a closing socket has to hand its close frame out before it is cut: a peer that reads nothing never takes it. */
const CLOSE_GRACE_MS = 2_000;
/** Messages a socket may send per second, after its burst (decision 0064). */
const MESSAGES_PER_SECOND = 50;
/** The burst, in active subscriptions: enough to start every one at once, end them all and start them again, with room for pings. */
const BURST_PER_SUBSCRIPTION = 4;

export interface GraphQLSocketOptions extends SocketCallerOptions {
  readonly graphql: GraphQLService;
  /** A context for one operation (or one event) of the socket's caller, read at each use, authenticated from `credentials`. */
  readonly contextFor: (caller: () => ClaimsPrincipal, credentials: AuthenticationRequest) => OperationContext;
  /** `GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET`. */
  readonly maxSubscriptions: number;
  /** `GRAPHQL_MAX_SOCKET_BUFFER_BYTES`. */
  readonly maxBufferBytes: number;
  /** `GRAPHQL_MAX_SOCKETS_PER_USER`. */
  readonly maxSocketsPerUser: number;
  /** `GRAPHQL_MAX_SOCKETS_PER_IP`. */
  readonly maxSocketsPerIp: number;
}

/** What graphql-ws keeps for one connection besides the protocol's own state. */
interface Connection {
  readonly socket: Socket;
  /** The upgrade request as schemes read it (credential headers, method, target, query, address): what an operation's check reads again to challenge an anonymous caller. */
  readonly presented: AuthenticationRequest;
  /** The upgrade request's credential (or anonymous), authenticated again as the socket opens; null when refused. */
  readonly upgrade: Promise<SocketCredential | null>;
  /** The socket's one principal's source: the upgrade's until `connection_init` brings a credential. */
  credential: SocketCredential;
  /** Ids of the subscriptions (not queries or mutations) this socket has started; see `admitted`. */
  readonly subscriptionIds: Set<string>;
  /** Stops following the credential (timer and revocation events). */
  stopFollowing: () => void;
  /** Lets go of the socket's place among its caller's sockets, once it has one. */
  releaseCaller: () => void;
  /** Sends one message, unless the socket is closing; past the buffer bound, closes it with 4408 instead. */
  readonly write: (data: string) => void;
  /** Closes the socket for one of its limits (a log line says which), ending its subscriptions at once. */
  readonly refuse: (code: number, reason: string) => void;
}

/**
 * `graphql-transport-ws` at the GraphQL path (docs/reference/graphql.md). The socket's caller is the upgrade
 * request's (bearer header, API key, or auth cookie with the Origin checked by the route, or any
 * credential of the scheme the default chooses for it; else anonymous) unless `connection_init`
 * brings a credential (`{"authorization":"Bearer <jwt>"}`, or a field an application's scheme
 * declares): the default scheme then judges it, and invalid credentials close the socket with
 * 4403. Whichever it is, the socket follows that one credential (`SocketCredential`): it closes
 * with 4403 as soon as the credential would be refused over HTTP (at the revocation events its
 * scheme declares, and at its end), and a cookie socket carries its user's current claims into
 * every later operation.
 * Every `subscribe` is prepared and authorized like an HTTP request, and at most
 * `maxSubscriptions` subscriptions are active at once.
 *
 * What one socket may cost is bounded (decision 0064): its unsent data (`maxBufferBytes`, 4408),
 * the messages it sends (a burst, then `MESSAGES_PER_SECOND`; 4429), and the sockets of its caller
 * and of its client address on this instance (`maxSocketsPerUser`, `maxSocketsPerIp`; 4429).
 */
export function graphqlSocketHandler(options: GraphQLSocketOptions) {
  /** How each subscription's events are executed and written, by the execution arguments graphql-ws hands back to `subscribe`. */
  const deliveries = new WeakMap<object, EventDelivery>();
  const callers = socketCallers(options);
  const server = makeServer<Record<string, unknown> | undefined, Connection>({
    schema: options.graphql.schema,
    onConnect: async (ctx) => {
      const credential = await callers.connection(ctx.connectionParams, ctx.extra.presented, ctx.extra.upgrade);
      // A socket closed meanwhile has nothing left to follow (its close handler has run).
      if (credential === null || ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false;
      const caller = callerOf(credential.principal);
      if (caller !== null) {
        const release = perCaller.admit(caller);
        // graphql-ws then closes with 4403, which a socket already closing ignores: the client sees 4429.
        if (release === null) return ctx.extra.refuse(TOO_MANY, 'Too many sockets of this user'), false;
        ctx.extra.releaseCaller = release;
      }
      ctx.extra.credential = credential;
      ctx.extra.stopFollowing = callers.follow(credential, ctx.extra.socket);
      return true;
    },
    onSubscribe: async (ctx, id, payload) => {
      const request = {
        query: payload.query,
        ...(payload.variables ? { variables: payload.variables } : {}),
        ...(payload.operationName ? { operationName: payload.operationName } : {}),
        ...(payload.extensions ? { extensions: payload.extensions } : {}),
      };
      // graphql-ws has no automatic persisted queries; with trusted documents, only listed ones run here too.
      const prepared = await options.graphql.prepareRequest(request, ['query', 'mutation', 'subscription'], { automaticPersisted: false });
      if (prepared.kind === 'refused') return prepared.errors.map((error) => new GraphQLErrorClass(error.message, { extensions: error.extensions ?? {} }));
      if (prepared.operation === 'subscription' && !admitted(ctx, id, options.maxSubscriptions)) {
        return [graphqlError('TOO_MANY_SUBSCRIPTIONS', `At most ${options.maxSubscriptions} subscriptions may be active on one socket.`)];
      }
      // A re-check under way (a revocation event just arrived) decides the principal this operation runs with.
      const { credential } = ctx.extra;
      await credential.settled();
      // Read at each use: a subscription's later events are resolved for the caller as they are then.
      const caller = () => credential.principal;
      const args = {
        schema: options.graphql.schema,
        document: prepared.document,
        contextValue: options.contextFor(caller, ctx.extra.presented),
        variableValues: payload.variables ?? null,
        operationName: payload.operationName ?? null,
      };
      deliveries.set(args, { contextFor: () => options.contextFor(caller, ctx.extra.presented), sink: nextMessages(ctx.extra.write, id) });
      return args;
    },
    execute: (args) => options.graphql.executeArgs(args as OperationArgs),
    subscribe: (args) => options.graphql.subscribeArgs(args as OperationArgs, deliveries.get(args) ?? { contextFor: () => args.contextValue as OperationContext }),
    // Results without errors go out as they are; errors get their codes and masking.
    onNext: (_ctx, _id, _payload, _args, result) => (result.errors?.length ? (options.graphql.format(result) as FormattedExecutionResult) : undefined),
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatted(error)),
  });

  const perCaller = new SocketCounts(options.maxSocketsPerUser);
  const perAddress = new SocketCounts(options.maxSocketsPerIp);
  const burst = BURST_PER_SUBSCRIPTION * options.maxSubscriptions;

  return (socket: Socket, request: AuthenticationRequest): void => {
    const ip = request.ip ?? '';
    // Counted from the upgrade on, signed in or not, before anything else is spent on the socket.
    const releaseAddress = perAddress.admit(ip);
    const logRefusal = (code: number, reason: string) => options.logger.warn({ code, ip }, `GraphQL socket closed: ${reason}`);
    if (releaseAddress === null) {
      logRefusal(TOO_MANY, 'Too many sockets from this address');
      return closeThenCut(socket, TOO_MANY, 'Too many sockets from this address');
    }
    const presented = callers.presented(request);
    const budget = new MessageBudget(burst, MESSAGES_PER_SECOND);
    let ended = false;
    const end = (code: number, reason: string) => {
      if (ended) return;
      ended = true;
      connection.stopFollowing();
      closeThenCut(socket, code, reason);
      // The subscriptions end now, not once the peer has answered the close (a paused one never does).
      void closed(code, reason);
    };
    const refuse = (code: number, reason: string) => {
      if (ended) return;
      logRefusal(code, reason);
      end(code, reason);
    };
    const connection: Connection = {
      socket,
      presented,
      // The pipeline accepted these already; read again for their end, which it does not keep.
      upgrade: callers.upgrade(presented),
      credential: SocketCredential.anonymous(),
      subscriptionIds: new Set(),
      stopFollowing: () => undefined,
      releaseCaller: () => undefined,
      write: (data) => {
        if (socket.readyState !== socket.OPEN) return;
        const waiting = socket.bufferedAmount;
        socket.send(data);
        // One message may pass the bound on its own when nothing else waits, so that a result
        // larger than the bound does not make the socket useless to a client that reads.
        if (waiting > 0 && socket.bufferedAmount > options.maxBufferBytes) refuse(SLOW_CONSUMER, 'Too much unsent data: the client reads too slowly');
      },
      refuse,
    };
    connection.upgrade.catch(() => undefined);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        // Handed to ws at once, not awaited until it is flushed: whatever the peer has not read
        // waits in ws, where the bound above sees it, and nowhere else.
        send: (data) => connection.write(data),
        // graphql-ws's own closes (4400, 4403, its 4408 for a missing `connection_init`) are cut alike.
        close: (code, reason) => closeThenCut(socket, code ?? 1000, reason ?? ''),
        onMessage: (callback) =>
          socket.on('message', (data) => {
            if (socket.readyState !== socket.OPEN) return;
            if (!budget.take()) return refuse(TOO_MANY, 'Too many messages');
            callback(String(data)).catch((error: unknown) => {
              options.logger.warn({ err: error }, 'GraphQL socket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      connection,
    );
    // The socket counts against its caller and address until it is really gone.
    socket.once('close', (code, reason) => {
      releaseAddress();
      connection.releaseCaller();
      end(code, String(reason));
    });
  };
}

/**
 * Closes `socket` with `code`, and cuts it if it is not closed `CLOSE_GRACE_MS` later: a close
 * frame queued behind data the peer does not read never leaves, and ws would otherwise hold the
 * socket and its unsent data for 30 seconds.
 */
function closeThenCut(socket: Socket, code: number, reason: string): void {
  if (socket.readyState === socket.OPEN) socket.close(code, reason);
  if (socket.readyState === socket.CLOSED) return;
  const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
}

/**
 * Closes every open socket with 1001 as the app shuts down, before the server waits for its
 * connections: graphql-ws ends each socket's subscriptions as it closes, and the client knows to
 * reconnect rather than treat the close as an error (the WebSocket plugin's own close sends no code).
 */
export function closeSocketsGoingAway(sockets: Iterable<Socket>): void {
  for (const socket of sockets) {
    if (socket.readyState === socket.OPEN) socket.close(GOING_AWAY, 'Server shutting down');
  }
}

/**
 * Whether one more subscription (`id`) fits under the cap; counts it when it does. graphql-ws
 * forgets an operation when it completes (either side) or fails, so the ids it no longer holds
 * are no longer active; completing one frees its slot for the next.
 */
function admitted(ctx: Context<Record<string, unknown> | undefined, Connection>, id: string, max: number): boolean {
  const ids = ctx.extra.subscriptionIds;
  // `id` is the operation being admitted: a reused id counts once, as this one.
  ids.delete(id);
  for (const other of ids) if (!(other in ctx.subscriptions)) ids.delete(other);
  if (ids.size >= max) return false;
  ids.add(id);
  return true;
}

/**
 * Writes a subscription's results as graphql-transport-ws `next` messages around the JSON text
 * of each result, which every subscriber of a shared result gets alike: the message is put
 * together, not serialized again per subscriber. ws keeps the order of everything sent.
 */
function nextMessages(write: (data: string) => void, id: string): (payload: string) => void {
  const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  return (payload) => write(`${head}${payload}}`);
}

function formatted(error: GraphQLError): GraphQLError {
  return error.extensions?.code ? error : new GraphQLErrorClass(error.message, { ...error, extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } });
}

export { GRAPHQL_TRANSPORT_WS_PROTOCOL };
