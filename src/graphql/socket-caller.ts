import type { WebSocket as Socket } from 'ws';
import { CloseCode } from 'graphql-ws';
import type { Logger } from 'pino';
import type { RevocationList } from '../revocation/revocation-list.ts';
import {
  type AuthenticationHandler,
  type AuthenticationRequest,
  type AuthenticationSchemeProvider,
  declaredCredentials,
  guardedHeaders,
} from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { RevocationEvent } from '../store/ports.ts';
import type { KeyRing } from '../tokens/key-ring.ts';
import { SocketCredential } from '../schemes/socket-credential.ts';

/** The close code of docs/reference/graphql.md for a connection whose credentials no longer hold. */
export const FORBIDDEN = CloseCode.Forbidden; // 4403
/** The longest a socket's expiry timer waits before looking at the clock again. */
const LONGEST_WAIT_MS = 60_000;

export interface SocketCallerOptions {
  /** The schemes HTTP uses, with cookie sessions read without sliding (a socket is no use of its session). */
  readonly schemes: AuthenticationSchemeProvider;
  readonly revocations: RevocationList;
  /** Re-read before tokens are checked again at a signing-key revocation (the event names the key, the ring drops it). */
  readonly keyRing: Pick<KeyRing, 'refresh'>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Who is behind a GraphQL socket, by the rules of docs/reference/graphql.md, whichever server runs
 * the protocol (Gatehouse's own endpoint, or graphql-ws's `useServer` on an application's): the
 * upgrade request's credential unless `connection_init` brings one, judged by the scheme the
 * default chooses for it, and followed for as long as the socket is open.
 */
export interface SocketCallers {
  /** The upgrade request as schemes read it again later: only its credential headers, its method, target, query and address. */
  presented(request: AuthenticationRequest): AuthenticationRequest;
  /** The upgrade's credential (or anonymous), authenticated again as the socket opens; null when refused. */
  upgrade(presented: AuthenticationRequest): Promise<SocketCredential | null>;
  /**
   * The credential `connection_init` brings, judged by the scheme the default chooses for it (as
   * for the upgrade and any request), or the upgrade's when it brings none; null when refused.
   */
  connection(params: Readonly<Record<string, unknown>> | undefined, presented: AuthenticationRequest, upgrade: Promise<SocketCredential | null>): Promise<SocketCredential | null>;
  /** Closes `socket` with 4403 once `credential` no longer holds; returns the way to stop. */
  follow(credential: SocketCredential, socket: Socket): () => void;
}

export function socketCallers(options: SocketCallerOptions): SocketCallers {
  const keptHeaders = guardedHeaders(options.schemes.handlers);
  const initFields = connectionParamsOf(options.schemes.handlers);

  /** The key ring re-read once per signing-key event, however many sockets wait for it. */
  let ringRefresh: { eventId: number; done: Promise<void> } | undefined;
  const ringAfter = (event: RevocationEvent): Promise<void> | undefined => {
    if (event.kind !== 'signing-key') return undefined;
    if (ringRefresh?.eventId !== event.id) ringRefresh = { eventId: event.id, done: options.keyRing.refresh().catch(() => undefined) };
    return ringRefresh.done;
  };

  return {
    presented: (request) => upgradeRequest(request, keptHeaders),
    upgrade: (presented) => SocketCredential.open(options.schemes.defaultFor(presented), presented),
    connection: async (params, presented, upgrade) => {
      const headers = params === undefined ? undefined : headersOf(params, initFields);
      if (headers === undefined) return upgrade;
      if (headers === null) return null;
      const request: AuthenticationRequest = { ...presented, headers };
      const credential = await SocketCredential.open(options.schemes.defaultFor(request), request);
      // What the chosen scheme finds no credential of (`Basic …` for Bearer) is none the socket could follow.
      return credential?.principal.isAuthenticated ? credential : null;
    },
    follow: (credential, socket) => follow(credential, socket, options, ringAfter),
  };
}

/** Whom a socket counts against: its user, or the client of its API key; null for an anonymous socket. */
export function callerOf(principal: ClaimsPrincipal): string | null {
  if (!principal.isAuthenticated) return null;
  const { subject } = principal;
  if (subject !== null) return `user:${subject}`;
  const client = principal.findFirst('client')?.value;
  return client === undefined ? null : `client:${client}`;
}

/**
 * The upgrade request as the schemes read it: of its headers, only those that carry credentials
 * (`keptHeaders`); its method, target, query and address.
 */
function upgradeRequest(request: AuthenticationRequest, keptHeaders: readonly string[]): AuthenticationRequest {
  const headers: Record<string, string | string[]> = {};
  for (const name of keptHeaders) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const { method, url, ip, query } = request;
  return { headers, ...(method !== undefined ? { method } : {}), ...(url !== undefined ? { url } : {}), ...(ip !== undefined ? { ip } : {}), ...(query !== undefined ? { query } : {}) };
}

/** Each `connection_init` field a scheme declares (`CredentialSources.connectionParams`), with the header it stands for. */
function connectionParamsOf(handlers: readonly AuthenticationHandler[]): ReadonlyMap<string, string> {
  const fields = new Map<string, string>();
  for (const handler of handlers) {
    for (const [field, header] of Object.entries(declaredCredentials(handler).connectionParams ?? {})) {
      if (!fields.has(field)) fields.set(field, header.toLowerCase());
    }
  }
  return fields;
}

/**
 * The headers a `connection_init` payload brings: undefined when it has none of the declared
 * fields (the upgrade's credential holds), null when one is not a string (refused).
 */
function headersOf(params: Readonly<Record<string, unknown>>, fields: ReadonlyMap<string, string>): Record<string, string> | null | undefined {
  let headers: Record<string, string> | undefined;
  for (const [field, header] of fields) {
    const value = params[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return null;
    (headers ??= {})[header] = value;
  }
  return headers;
}

/**
 * Closes the socket with 4403 once its credential no longer holds, re-checking it only when that
 * may have changed: at its end (one timer per socket), at each revocation event that concerns
 * it, once what the event changes is in place (`ready`), and when this instance's view of
 * revocations goes stale. Returns the way to stop.
 */
function follow(
  credential: SocketCredential,
  socket: Socket,
  { clock, revocations, logger }: Pick<SocketCallerOptions, 'clock' | 'revocations' | 'logger'>,
  ready: (event: RevocationEvent) => Promise<void> | undefined,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const forbid = () => {
    if (socket.readyState === socket.OPEN) socket.close(FORBIDDEN, 'Forbidden');
  };
  const recheck = () => {
    credential.recheck(() => clock.now()).then(
      (holds) => (holds ? arm() : forbid()),
      (error: unknown) => {
        // Unknown is not valid: the client reconnects and authenticates afresh.
        logger.warn({ err: error }, 'could not re-check a socket credential; closing the socket');
        forbid();
      },
    );
  };
  // Far-off ends are approached in steps, so that the clock is read again before the end.
  const arm = () => {
    clearTimeout(timer);
    const end = credential.expiresAt;
    if (end === undefined) return;
    timer = setTimeout(() => (clock.now() >= (credential.expiresAt ?? Infinity) ? recheck() : arm()), Math.min(Math.max(end - clock.now(), 0), LONGEST_WAIT_MS));
    timer.unref();
  };
  const stopListening = revocations.onEvent((event) => {
    if (!credential.concerns(event)) return;
    const waiting = ready(event);
    if (waiting === undefined) recheck();
    else void waiting.then(recheck);
  });
  // A view of revocations too old to vouch for a token or key: their sockets close as HTTP
  // refuses them (503); a cookie socket holds only while its session can still be read.
  const stopWatchingStaleness = credential.authenticated ? revocations.onStale(recheck) : () => undefined;
  arm();
  return () => {
    clearTimeout(timer);
    stopListening();
    stopWatchingStaleness();
  };
}

/**
 * Whether a principal was signed in by a scheme whose credential a browser sends on its own to
 * any site that opens a socket (a cookie): such a socket must come from a trusted origin.
 */
export function cookieSignIns(schemes: AuthenticationSchemeProvider): (principal: ClaimsPrincipal) => boolean {
  const cookieSchemes = new Set(schemes.handlers.filter(readsCookies).map((handler) => handler.scheme));
  return (principal) => principal.identities.some((identity) => identity.isAuthenticated && cookieSchemes.has(identity.authenticationType ?? ''));
}

/** A scheme whose credential a browser sends on its own to any site that opens a socket: a cookie. */
function readsCookies(handler: AuthenticationHandler): boolean {
  const { cookies, headers } = declaredCredentials(handler);
  return (cookies !== undefined && cookies.length > 0) || (headers?.includes('cookie') ?? false);
}
