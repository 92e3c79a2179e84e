import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { ServerOptions } from 'graphql-ws';
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import { trustedOrigins } from '../endpoints/cookie-session-check.ts';
import { clientAddress, receivedFromNode } from '../endpoints/node-request.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { authenticationSchemes } from '../schemes/authentication-schemes.ts';
import type { SocketCredential } from '../schemes/socket-credential.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import { graphqlError } from './errors.ts';
import { callerOf, cookieSignIns, socketCallers } from './socket-caller.ts';
import { SocketCounts } from './socket-counts.ts';

/** docs/reference/graphql.md: too many sockets of the caller or its address (graphql-ws clients give up). */
const TOO_MANY = 4429;

/** What one socket may cost on a server the application runs; each defaults to Gatehouse's setting. */
export interface SocketLimits {
  /** Operations active at once on one socket. @default GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET */
  readonly maxSubscriptionsPerSocket?: number;
  /** Open sockets of one user (or API-key client); one more is closed with 4429. @default GRAPHQL_MAX_SOCKETS_PER_USER */
  readonly maxSocketsPerUser?: number;
  /** Open sockets from one client address; one more is closed with 4429. @default GRAPHQL_MAX_SOCKETS_PER_IP */
  readonly maxSocketsPerIp?: number;
}

/**
 * What graphql-ws's `useServer` for `ws` hands each socket's callbacks (its `Extra`): ws's
 * `WebSocket` and the upgrade request. Typed without ws's types, which an application need not install.
 */
export interface SocketExtra {
  readonly socket: object;
  readonly request: IncomingMessage;
}

const LIMIT_NAMES = { maxSubscriptionsPerSocket: true, maxSocketsPerUser: true, maxSocketsPerIp: true } as const satisfies OptionNames<SocketLimits>;

/** One sentence for the first thing wrong with `limits`: a misspelt one would otherwise be ignored. */
export function checkSocketLimits(who: string, limits: SocketLimits): void {
  refuseNonObject(who, limits);
  refuseUnknownOptions(who, limits, LIMIT_NAMES);
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) throw new Error(`${who}: ${name} must be a positive integer.`);
  }
}

/** What is kept of one socket between `connection_init` and its close. */
interface SocketCaller {
  readonly presented: AuthenticationRequest;
  readonly credential: SocketCredential;
}

type ContextFor = (caller: () => ClaimsPrincipal, credentials: AuthenticationRequest) => object;

/**
 * graphql-ws `useServer` options that give an application's socket server the live-connection
 * rules of docs/reference/graphql.md: at `connection_init` the socket's caller is the upgrade's
 * credential unless the payload brings one (`{"authorization":"Bearer <jwt>"}`, or a field a
 * scheme declares), invalid credentials close it with 4403, and so does a cookie-signed-in socket
 * from an origin not trusted with the cookie; the credential is then followed, the socket closed
 * with 4403 when it would be refused over HTTP (its end, a revocation, a claims change of a
 * token), and every operation's context reads the credential's current principal. Sockets per
 * caller and per address, and operations per socket, are bounded. The message rate and unsent
 * data bounds of Gatehouse's own endpoint need its socket handling, and are not here.
 */
export function socketOptions(gatehouse: Gatehouse, contextFor: ContextFor, limits: SocketLimits): ServerOptions<Record<string, unknown> | undefined, SocketExtra> {
  checkSocketLimits('graphqlAuthorization: socketOptions', limits);
  const services = gatehouseServices(gatehouse);
  const { config } = services;
  // The schemes of every request; a socket re-reads its cookie session without sliding it.
  const schemes = authenticationSchemes(services, services.sessions.withoutRenewal(), gatehouse.schemes);
  const callers = socketCallers({ schemes, revocations: services.revocations, keyRing: services.keyRing, clock: services.clock, logger: services.logger });
  const signedInByCookie = cookieSignIns(schemes);
  const origins = new Set(trustedOrigins(config));
  const addressOf = clientAddress(config.trustProxy);
  const perCaller = new SocketCounts(limits.maxSocketsPerUser ?? config.graphqlMaxSocketsPerUser);
  const perAddress = new SocketCounts(limits.maxSocketsPerIp ?? config.graphqlMaxSocketsPerIp);
  const maxOperations = limits.maxSubscriptionsPerSocket ?? config.graphqlMaxSubscriptionsPerSocket;
  const sockets = new WeakMap<WebSocket, SocketCaller>();

  /** Closes the socket with 4429, and says why in the log; graphql-ws's own 4403 after it is ignored by a closing socket. */
  const tooMany = (socket: WebSocket, ip: string, reason: string): false => {
    services.logger.warn({ code: TOO_MANY, ip }, `GraphQL socket closed: ${reason}`);
    socket.close(TOO_MANY, reason);
    return false;
  };

  const connect = async (socket: WebSocket, request: IncomingMessage, params: Readonly<Record<string, unknown>> | undefined): Promise<boolean> => {
    const ip = addressOf(request);
    const releaseAddress = perAddress.admit(ip);
    if (releaseAddress === null) return tooMany(socket, ip, 'Too many sockets from this address');
    socket.once('close', releaseAddress);
    const presented = callers.presented(receivedFromNode(request, request.url ?? '/', ip));
    const credential = await callers.connection(params, presented, callers.upgrade(presented));
    if (credential === null || socket.readyState !== socket.OPEN) return false;
    const origin = request.headers.origin;
    if (signedInByCookie(credential.principal) && !(typeof origin === 'string' && origins.has(origin))) return false;
    const caller = callerOf(credential.principal);
    if (caller !== null) {
      const releaseCaller = perCaller.admit(caller);
      if (releaseCaller === null) return tooMany(socket, ip, 'Too many sockets of this user');
      socket.once('close', releaseCaller);
    }
    socket.once('close', callers.follow(credential, socket));
    sockets.set(socket, { presented, credential });
    return true;
  };

  return {
    onConnect: (ctx) => connect(ctx.extra.socket as WebSocket, ctx.extra.request, ctx.connectionParams),
    onSubscribe: (ctx, id) => {
      const active = Object.keys(ctx.subscriptions).filter((other) => other !== id).length;
      if (active >= maxOperations) return [graphqlError('TOO_MANY_SUBSCRIPTIONS', `At most ${maxOperations} subscriptions may be active on one socket.`)];
      return undefined;
    },
    context: async (ctx) => {
      const caller = sockets.get(ctx.extra.socket as WebSocket);
      // Spread after the application's own options: its `onConnect` would otherwise replace the one that authenticates.
      if (caller === undefined) throw new Error('graphqlAuthorization: this socket was not authenticated by socketOptions().onConnect.');
      // A re-check under way (a revocation event just arrived) decides the principal this operation starts with.
      await caller.credential.settled();
      // Read at each use: a subscription's later events are resolved for the caller as they are then.
      return contextFor(() => caller.credential.principal, caller.presented) as Record<string, unknown>;
    },
  };
}
