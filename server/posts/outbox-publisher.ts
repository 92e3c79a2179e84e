import type { Clock } from 'gatehouse-auth';
import type { Events } from 'gatehouse-auth/graphql';
import type { Logger } from 'pino';
import type { EventOutboxStore, StoredEvent } from '../storage/event-outbox-store.ts';

/** What subscribers receive: the event's payload with its outbox id, by which a repeat is told. */
export interface Announcement<T = unknown> {
  readonly eventId: number;
  readonly payload: T;
}

export interface OutboxTimings {
  /** An event unpublished for this long is its writer's no more: the relay publishes it. */
  readonly staleAfterMs: number;
  /** How often the relay looks. */
  readonly relayEveryMs: number;
  /** How long a relay's claim keeps the others off an event (then its relay is taken for dead). */
  readonly claimMs: number;
  /** Published events are deleted this long after. */
  readonly keepPublishedMs: number;
  /** How often housekeeping deletes them. */
  readonly pruneEveryMs: number;
}

export const DEFAULT_OUTBOX_TIMINGS: OutboxTimings = {
  staleAfterMs: 5_000,
  relayEveryMs: 1_000,
  claimMs: 10_000,
  keepPublishedMs: 60 * 60_000,
  pruneEveryMs: 10 * 60_000,
};

/** Events claimed and published in one relay pass, at most. */
const RELAY_BATCH = 100;
/** Marks of events published at once wait this long, to be written together, off the writer's path. */
const MARK_AFTER_MS = 100;

export interface OutboxPublisherOptions {
  readonly outbox: EventOutboxStore;
  /** Where the announcements go; `Announcement`s on every topic. */
  readonly events: Pick<Events<any>, 'publish'>;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'warn'>;
  readonly timings?: Partial<OutboxTimings>;
}

/**
 * Publishes the outbox's events (decision 0053): each at once after the commit that wrote it, and,
 * by a relay on every instance, those left unpublished (their instance died between the commit
 * and the publish or the mark). Delivery is at least once: an event published and not yet marked
 * when its instance died goes out again; subscribers drop the repeat by its id (`once-per-event.ts`).
 */
export class OutboxPublisher {
  private readonly timings: OutboxTimings;
  private readonly timers: NodeJS.Timeout[] = [];
  private unmarked: number[] = [];
  private markTimer: NodeJS.Timeout | undefined;
  /** The relay pass, mark or prune under way, awaited by `close`. */
  private readonly working = new Set<Promise<unknown>>();
  private relaying = false;
  private closed = false;

  constructor(private readonly options: OutboxPublisherOptions) {
    this.timings = { ...DEFAULT_OUTBOX_TIMINGS, ...options.timings };
  }

  /**
   * Publishes an event just committed. A failure is told, not thrown: the event is stored, and the
   * relay publishes it once it is stale.
   */
  async publish(event: StoredEvent): Promise<void> {
    try {
      await this.options.events.publish(event.topic, announcement(event));
    } catch (error) {
      this.options.logger.warn({ err: error, topic: event.topic }, 'could not publish an event; the outbox relay sends it later');
      return;
    }
    this.unmarked.push(event.id);
    this.markTimer ??= setTimeout(() => this.track(this.markPublished()), MARK_AFTER_MS).unref();
  }

  /** Starts the relay and the housekeeping; neither keeps the process alive. */
  start(): void {
    const every = (ms: number, work: () => Promise<unknown>) => this.timers.push(setInterval(() => this.track(work()), ms).unref());
    every(this.timings.relayEveryMs, () => this.relay());
    every(this.timings.pruneEveryMs, () => this.prune());
  }

  /** Stops the timers, lets the work under way finish and writes the marks still waiting. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await Promise.all(this.working);
    await this.markPublished();
  }

  /**
   * One relay pass: claims the stale unpublished events, publishes them in order and marks them.
   * Answers how many it published. One pass at a time on an instance.
   */
  async relay(): Promise<number> {
    if (this.relaying || this.closed) return 0;
    this.relaying = true;
    try {
      const now = this.options.clock.now();
      const claimed = await this.options.outbox.claimUnpublished({
        createdBefore: now - this.timings.staleAfterMs,
        now,
        claimUntil: now + this.timings.claimMs,
        limit: RELAY_BATCH,
      });
      const published: number[] = [];
      try {
        for (const event of claimed) {
          await this.options.events.publish(event.topic, announcement(event));
          published.push(event.id);
        }
      } finally {
        // Those not published stay claimed until the claim runs out, then a relay tries again.
        await this.options.outbox.markPublished(published, this.options.clock.now());
      }
      return published.length;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'the outbox relay failed; it tries again');
      return 0;
    } finally {
      this.relaying = false;
    }
  }

  private async markPublished(): Promise<void> {
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    const ids = this.unmarked;
    this.unmarked = [];
    // Unmarked, they go out again after the relay's wait; subscribers drop the repeat.
    await this.options.outbox.markPublished(ids, this.options.clock.now()).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not mark events published; the relay sends them again');
    });
  }

  private async prune(): Promise<void> {
    await this.options.outbox.prunePublished(this.options.clock.now() - this.timings.keepPublishedMs).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not delete published events; housekeeping tries again later');
    });
  }

  private track(work: Promise<unknown>): void {
    this.working.add(work);
    void work.catch(() => undefined).finally(() => this.working.delete(work));
  }
}

function announcement(event: StoredEvent): Announcement {
  return { eventId: event.id, payload: event.payload };
}
