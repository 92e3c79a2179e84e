import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Clock, systemClock } from './clock.ts';
import { createRedis } from './redis.ts';

/** A command sent while Redis answers fails after this long at most (and its caller falls back). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** A connection attempt that Redis accepts and never answers (a black-holed route) fails after this long. */
const CONNECT_TIMEOUT_MS = 2_000;
/** How long a start waits for the first connection before it goes on without Redis. */
const FIRST_CONNECTION_WAIT_MS = 2_000;
/** How often a command that fails while the connection looks up is told (a slow Redis, not a lost one). */
const COMMAND_FAILURE_LOG_INTERVAL_MS = 60_000;

export interface RedisConnectionOptions {
  readonly url: string;
  readonly logger: Pick<Logger, 'warn' | 'info'>;
  /** Spaces the warnings of failing commands. @default the system clock */
  readonly clock?: Clock;
}

type State = 'connecting' | 'up' | 'down';

/**
 * One Redis shared by the parts that use it (subscription events, rate-limit counters,
 * revocation notices), and whether it answers. Each part works on this instance's view while it
 * does not: events reach this instance's subscribers, counters count here, revocations arrive by
 * polling the store. The log says so once when Redis goes away and once when it answers again,
 * not at every reconnection attempt; ioredis reconnects on its own and subscribers subscribe
 * again. Nothing connects before a part asks (a CLI command that announces nothing opens nothing).
 */
export class RedisConnection {
  private state: State = 'connecting';
  private readonly clients = new Set<Redis>();
  private commandClient: Redis | undefined;
  private firstConnection: Promise<void> | undefined;
  private endFirstWait: (() => void) | undefined;
  private readonly upListeners = new Set<() => void>();
  private lastCommandFailureLoggedAt = -Infinity;
  private closed = false;

  constructor(private readonly options: RedisConnectionOptions) {}

  /** Whether every client of the connection is connected (subscribers subscribed again). */
  get up(): boolean {
    return this.state === 'up';
  }

  /**
   * The client for commands (PUBLISH, scripts, PING). It has no offline queue: a command sent
   * while Redis is away fails at once instead of waiting, and is never sent late, after the
   * caller has fallen back; one sent while Redis answers fails within REDIS_COMMAND_TIMEOUT_MS.
   * @internal ioredis's types stay out of the package's declarations (an optional peer).
   */
  commands(): Redis {
    this.commandClient ??= this.track(
      createRedis(this.options.url, {
        enableOfflineQueue: false,
        autoResendUnfulfilledCommands: false,
        maxRetriesPerRequest: 0,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        connectTimeout: CONNECT_TIMEOUT_MS,
      }),
    );
    return this.commandClient;
  }

  /**
   * A new client for SUBSCRIBE or PSUBSCRIBE: a subscription waits for Redis, and is made again
   * each time Redis returns (unless `autoResubscribe` is false: a user that must know when its
   * subscription holds again makes it itself, at each 'ready').
   * @internal
   */
  subscriber(options: { autoResubscribe?: boolean } = {}): Redis {
    return this.track(createRedis(this.options.url, { maxRetriesPerRequest: null, connectTimeout: CONNECT_TIMEOUT_MS, ...options }));
  }

  /**
   * Opens the command client and resolves once the first attempt is over: Redis answered, refused,
   * or did not answer within FIRST_CONNECTION_WAIT_MS. Never rejects: a start goes on either way.
   */
  connected(): Promise<void> {
    if (this.firstConnection) return this.firstConnection;
    this.firstConnection = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FIRST_CONNECTION_WAIT_MS);
      timer.unref();
      this.endFirstWait = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.commands();
    if (this.state !== 'connecting') this.endFirstWait?.();
    return this.firstConnection;
  }

  /** Calls `listener` each time Redis answers again after it was lost; returns the unsubscribe. */
  onUp(listener: () => void): () => void {
    this.upListeners.add(listener);
    return () => this.upListeners.delete(listener);
  }

  /**
   * A command failed although the connection looked up (a slow Redis): told at most once a
   * minute; the caller has fallen back on its own.
   */
  commandFailed(what: string, error: unknown): void {
    const now = (this.options.clock ?? systemClock).now();
    if (this.state !== 'up' || now - this.lastCommandFailureLoggedAt < COMMAND_FAILURE_LOG_INTERVAL_MS) return;
    this.lastCommandFailureLoggedAt = now;
    this.options.logger.warn({ reason: reasonOf(error) }, `a Redis command (${what}) failed; this instance went on with its own view`);
  }

  /** Answers a PING within `deadlineMs`: readiness, beyond what the clients' states tell. */
  async ping(deadlineMs: number): Promise<boolean> {
    if (!this.up) return false;
    const answered = this.commands().ping().then(() => true, () => false);
    return (await within(answered, deadlineMs)) ?? false;
  }

  /** Closes a client of this connection that its user no longer needs. @internal */
  release(client: Redis): void {
    this.clients.delete(client);
    client.disconnect();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const client of this.clients) client.disconnect();
    this.clients.clear();
    this.commandClient = undefined;
    this.upListeners.clear();
    this.endFirstWait?.();
  }

  private track(client: Redis): Redis {
    this.clients.add(client);
    client.on('ready', () => this.clientReady());
    // Without an 'error' listener ioredis prints every failed attempt; the state says it once.
    client.on('error', (error: unknown) => this.clientLost(client, error));
    client.on('close', () => this.clientLost(client, undefined));
    return client;
  }

  private clientReady(): void {
    if (this.closed || this.state === 'up') return;
    if (![...this.clients].every((client) => client.status === 'ready')) return;
    const wasDown = this.state === 'down';
    this.state = 'up';
    this.endFirstWait?.();
    if (!wasDown) return;
    this.options.logger.info('Redis answers again: subscription events, rate limits and revocation notices are shared across instances again');
    for (const listener of this.upListeners) listener();
  }

  private clientLost(client: Redis, error: unknown): void {
    if (this.closed || this.state === 'down' || !this.clients.has(client)) return;
    this.state = 'down';
    this.endFirstWait?.();
    this.options.logger.warn(
      { reason: reasonOf(error) },
      "Redis does not answer: working on this instance's view until it does (subscription events reach this instance's subscribers only, rate limits count per instance, revocations arrive by polling the store)",
    );
  }
}

/** The error's message alone: the log needs no stack for a connection refused, and never the URL. */
function reasonOf(error: unknown): string {
  if (error === undefined) return 'the connection closed';
  return error instanceof Error ? error.message : String(error);
}

/** `promise`, or `undefined` once `ms` have passed: a start that waits on Redis is bounded. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
