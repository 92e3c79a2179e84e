/**
 * GraphQL over WebSocket as a real client speaks it: graphql-ws's `createClient` on the `ws`
 * WebSocket, against a listening instance. A socket may carry credentials in `connection_init`
 * (`connectionParams`) or in the upgrade's headers (`Authorization`, `X-Api-Key`, `Cookie` with
 * an `Origin`).
 *
 *   const socket = openSocket(url, { headers: { 'x-api-key': key } });
 *   await socket.connected;
 *   const posts = socket.subscribe('subscription { postCreated { title } }');
 *   expect((await socket.closedWithin(5_000)).code).toBe(4403);
 */
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

export interface Received {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: readonly (string | number)[]; extensions?: { code?: string } }[];
}

export interface Subscription {
  /** Every `next` payload, in order. */
  readonly received: Received[];
  /** The `error` message's errors, once one came. */
  readonly errors: () => Received['errors'] | undefined;
  /** Whether the server completed it or sent an error. */
  readonly ended: () => boolean;
  /** Resolves once `count` payloads have arrived. */
  readonly receivedCount: (count: number, ms?: number) => Promise<void>;
  /** Completes it from the client's side. */
  readonly stop: () => void;
}

export interface TestSocket {
  readonly client: Client;
  /** Settles when the server acknowledged `connection_init`. */
  readonly connected: Promise<void>;
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  isClosed(): boolean;
  /** The close, or a rejection naming what did not happen within `ms`. */
  closedWithin(ms: number): Promise<{ code: number; reason: string }>;
  /** Runs a query or mutation on this socket; its one result. */
  execute(query: string, variables?: Record<string, unknown>): Promise<Received>;
  subscribe(query: string): Subscription;
  dispose(): Promise<void>;
}

export interface SocketOptions {
  readonly connectionParams?: Record<string, unknown>;
  /** Headers of the upgrade request. */
  readonly headers?: Record<string, string>;
}

export function openSocket(url: string, options: SocketOptions = {}): TestSocket {
  let closedAs: { code: number; reason: string } | undefined;
  let onClosed!: (close: { code: number; reason: string }) => void;
  let onConnected!: () => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const headers = options.headers ?? {};
  const client = createClient({
    url,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
    retryAttempts: 0,
    lazy: false,
    // The close is what tests look at (closed), not a log line.
    onNonLazyError: () => undefined,
    ...(options.connectionParams ? { connectionParams: options.connectionParams } : {}),
    on: {
      connected: () => onConnected(),
      closed: (event) => {
        const { code, reason } = event as CloseEvent;
        closedAs = { code, reason };
        onClosed(closedAs);
      },
      // A refused connection shows in its close code.
      error: () => undefined,
    },
  });

  const subscribe = (query: string, variables?: Record<string, unknown>): Subscription => {
    const received: Received[] = [];
    let errors: Received['errors'] | undefined;
    let ended = false;
    const waiters = new Set<() => void>();
    const stop = client.subscribe(
      { query, ...(variables ? { variables } : {}) },
      {
        next: (value) => {
          received.push(value as Received);
          for (const wake of waiters) wake();
        },
        error: (error) => {
          ended = true;
          errors = Array.isArray(error) ? (error as Received['errors']) : [{ message: String((error as Error)?.message ?? error) }];
          for (const wake of waiters) wake();
        },
        complete: () => {
          ended = true;
          for (const wake of waiters) wake();
        },
      },
    );
    const receivedCount = (count: number, ms = 8_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (received.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${received.length} of ${count} results within ${ms} ms (errors: ${JSON.stringify(errors)})`));
        }, ms);
        waiters.add(check);
        check();
      });
    return { received, errors: () => errors, ended: () => ended, receivedCount, stop };
  };

  return {
    client,
    connected,
    closed,
    isClosed: () => closedAs !== undefined,
    closedWithin: (ms) =>
      Promise.race([
        closed,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the socket was not closed within ${ms} ms`)), ms).unref()),
      ]),
    async execute(query, variables) {
      const operation = subscribe(query, variables);
      await new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`no result for ${query}`)), 8_000);
        const poll = setInterval(() => {
          if (!operation.ended()) return;
          clearInterval(poll);
          clearTimeout(deadline);
          resolve();
        }, 10);
      });
      const error = operation.errors();
      return error ? { errors: error } : (operation.received[0] ?? {});
    },
    subscribe: (query) => subscribe(query),
    dispose: () => client.dispose() as Promise<void>,
  };
}

/**
 * graphql-transport-ws spoken by hand on a bare `ws` socket, for what graphql-ws's client never
 * does: stop reading (`ws.pause()` stops reading its TCP socket), or send messages faster than
 * any application would.
 */
export interface RawSocket {
  readonly ws: WebSocket;
  /** `next` messages received so far. */
  nexts(): number;
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  send(message: Record<string, unknown>): void;
}

/** A raw socket, once the server acknowledged its `connection_init` (with `payload`, if given). */
export async function openRawSocket(url: string, payload?: Record<string, unknown>): Promise<RawSocket> {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  let nexts = 0;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  // A refused socket shows in its close code.
  ws.on('error', () => undefined);
  const acknowledged = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const type = (JSON.parse(String(data)) as { type: string }).type;
      if (type === 'connection_ack') resolve();
      else if (type === 'next') nexts += 1;
    });
    void closed.then(({ code }) => reject(new Error(`the socket closed with ${code} before connection_ack`)));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'connection_init', ...(payload ? { payload } : {}) }));
  await acknowledged;
  return { ws, nexts: () => nexts, closed, send: (message) => ws.send(JSON.stringify(message)) };
}
