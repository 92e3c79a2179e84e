import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type RedisConnection, REDIS_COMMAND_TIMEOUT_MS, within } from '../platform/redis-connection.ts';
import type { Clock } from '../platform/clock.ts';
import type { RevocationStore } from '../store/ports.ts';
import { REVOCATION_FRESHNESS_MS, type RevocationList } from './revocation-list.ts';

/** The Redis channel on which instances nudge each other to read the feed at once. */
export const REVOCATION_CHANNEL = 'gatehouse:revocations';

export interface RevocationFeedOptions {
  readonly store: RevocationStore;
  readonly list: RevocationList;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How far back the first read goes: events older than the longest credential lifetime no longer matter. */
  readonly lookBackMs: number;
  /** @default 1000, well inside the contract's 2 s */
  readonly pollMs?: number;
  /** When set, changes are announced through Redis and applied at once by every instance. The caller closes it. */
  readonly redis?: RedisConnection | null | undefined;
}

/**
 * Keeps a `RevocationList` current: reads the store's revocation events every second (each read
 * overlaps the previous by a few seconds, since transactions commit out of order), and when
 * `REDIS_URL` is set, reads at once whenever any instance or the CLI announces a change. The
 * store stays the truth; Redis carries only the nudge, so while Redis is away the feed goes on
 * polling, and when it answers again the feed reads at once (for the nudges it missed).
 *
 * Fresh means read from the store: a Redis nudge says only that something changed, so with Redis
 * up and the store away the view still ages. Once the last successful read began more than
 * `REVOCATION_FRESHNESS_MS` ago, the list is stale (credentials vouched for from memory are
 * refused) and its stale listeners (sockets) are told, until a read succeeds again.
 */
export class RevocationFeed {
  /** Each read goes this far behind the previous one. */
  static readonly OVERLAP_MS = 5_000;
  private readPoint = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Armed at each successful read for the moment the view would go stale without another. */
  private staleTimer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  /** The read queued behind the running one: it starts after, so it sees what committed since. */
  private queued: Promise<void> | undefined;
  private stopped = false;
  private subscriber: Redis | undefined;
  private stopListening: (() => void) | undefined;
  private readonly connection: RedisConnection | undefined;
  /** The log said the view went stale, and has not yet said it is current again. */
  private toldStale = false;

  constructor(private readonly options: RevocationFeedOptions) {
    this.connection = options.redis ?? undefined;
  }

  /**
   * When the last successful read started (epoch ms): this instance knows the revocations made
   * before then. Until the first read succeeds, the start of the look-back; undefined before `start`.
   */
  get lastReadAt(): number | undefined {
    return this.readPoint === 0 ? undefined : this.readPoint;
  }

  /** Reads the recent past, then keeps reading; starts with Redis away as well (it polls meanwhile). */
  async start(): Promise<void> {
    this.readPoint = this.options.clock.now() - this.options.lookBackMs;
    this.options.list.followFeed();
    await this.read();
    this.timer = setInterval(() => this.tick(), this.options.pollMs ?? 1_000);
    this.timer.unref();
    if (this.connection) await this.subscribe(this.connection);
  }

  /**
   * Applies the events written since the last read. A call made while a read runs waits for one
   * that starts after it (the running read may have queried before the caller's change
   * committed); all such calls share that one queued read.
   */
  read(): Promise<void> {
    if (this.reading) {
      return (this.queued ??= this.reading.then(() => {
        this.queued = undefined;
        return this.read();
      }));
    }
    this.reading = this.readOnce()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'could not read the revocation feed'))
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  /** After a change this process made: apply it here now, and tell the other instances. */
  async changed(): Promise<void> {
    await this.read();
    await this.announce();
  }

  /** Tells the other instances to read the feed now (a no-op without Redis; they poll anyway). */
  async announce(): Promise<void> {
    const { connection } = this;
    if (!connection || this.stopped) return;
    await connection.connected();
    // Redis away: the others poll the store within a second; the connection has told the log.
    if (!connection.up) return;
    await connection
      .commands()
      .publish(REVOCATION_CHANNEL, String(this.options.clock.now()))
      .catch((error: unknown) => connection.commandFailed('revocation notice', error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.staleTimer);
    this.stopListening?.();
    if (this.subscriber) this.connection?.release(this.subscriber);
    await this.reading;
  }

  /** Each poll: whether the view has gone stale (should its timer have been late), then a read. */
  private tick(): void {
    this.noticeStaleness();
    void this.read();
  }

  /** Tells the list's stale listeners (sockets) and the log, once per spell, when the view has gone stale. */
  private noticeStaleness(): void {
    if (this.options.list.noticeStaleness()) {
      this.toldStale = true;
      this.options.logger.warn(
        `revocations unknown for over ${REVOCATION_FRESHNESS_MS / 1000} s (the store does not answer the feed): bearer tokens and API keys are refused until it does`,
      );
    }
  }

  private async readOnce(): Promise<void> {
    const { store, list, clock } = this.options;
    const startedAt = clock.now();
    // Freshness is measured on the monotonic clock, from when the read began (what committed before is seen).
    const began = list.monotonicNow();
    const events = await store.listSince(this.readPoint - RevocationFeed.OVERLAP_MS);
    for (const event of events) list.apply(event);
    this.readPoint = startedAt;
    list.caughtUp(began);
    // Sockets learn of staleness when it begins, not at the next poll: a timer, not a tick.
    clearTimeout(this.staleTimer);
    if (!this.stopped) {
      this.staleTimer = setTimeout(() => this.noticeStaleness(), Math.max(0, began + REVOCATION_FRESHNESS_MS + 1 - list.monotonicNow()));
      this.staleTimer.unref();
    }
    if (this.toldStale) {
      this.toldStale = false;
      this.options.logger.info('revocations are current again: bearer tokens and API keys are accepted');
    }
    list.forgetAppliedBefore(startedAt - 4 * RevocationFeed.OVERLAP_MS);
    list.forgetUsersChangedBefore(startedAt - this.options.lookBackMs);
    list.forgetFamiliesEndedBefore(startedAt - this.options.lookBackMs);
  }

  /**
   * Subscribes to the nudges; waits for the subscription only while Redis answers, and then
   * boundedly: a start never hangs on Redis. The subscription is made again whenever Redis returns.
   */
  private async subscribe(connection: RedisConnection): Promise<void> {
    this.subscriber = connection.subscriber();
    this.subscriber.on('message', () => void this.read());
    this.stopListening = connection.onUp(() => void this.read());
    const subscribed = this.subscriber.subscribe(REVOCATION_CHANNEL).catch(() => undefined);
    await connection.connected();
    if (connection.up) await within(subscribed, 4 * REDIS_COMMAND_TIMEOUT_MS);
  }
}
