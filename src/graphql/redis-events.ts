import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RedisConnection, REDIS_COMMAND_TIMEOUT_MS, within } from '../platform/redis-connection.ts';
import { eventStream } from './event-stream.ts';
import type { Events, EventStream, EventTopics } from './events.ts';
import { TopicListeners } from './topic-listeners.ts';

/** Ids of events delivered here without Redis whose copy may still come back through it. */
const MAX_REMEMBERED_IDS = 10_000;

interface Outgoing {
  readonly topic: string;
  readonly payload: string;
}

/**
 * Events shared by every instance through Redis pub/sub (docs/reference/graphql.md and
 * docs/reference/persistence.md): a payload is published to its topic's channel, and each
 * instance — this one included — hands what arrives to its own subscribers, so every subscriber
 * gets it once, and the subscribers of every instance in Redis's one order. One pattern
 * subscription covers every topic, made at start: a subscriber added later misses nothing
 * published after it, whatever its topic. Each message is parsed once for all its subscribers.
 *
 * While Redis is away (or this instance's subscription is not in place) an event goes to this
 * instance's subscribers directly: they miss nothing, other instances miss it. An event published
 * through Redis whose copy has not come back when the subscription is lost is delivered here
 * then; each message carries an id, so a copy that still comes back later is not delivered twice.
 * Publishing never waits on Redis longer than the connection's command timeout.
 */
export class RedisEvents<Topics extends EventTopics> implements Events<Topics> {
  private readonly listeners = new TopicListeners();
  private readonly origin = randomBytes(8).toString('hex');
  private sequence = 0;
  /** Published through Redis, its copy not back yet: delivered here if the subscription is lost first. */
  private readonly unechoed = new Map<string, Outgoing>();
  /** Delivered here without Redis after an attempt through it: a late copy is dropped. */
  private readonly deliveredHere = new Set<string>();
  private subscriber: Redis | undefined;
  private subscribed = false;
  private subscribing: Promise<unknown> | undefined;
  private readonly pattern: string;

  constructor(
    private readonly connection: RedisConnection,
    private readonly channelPrefix: string,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly ownsConnection: boolean,
  ) {
    this.pattern = `${escapeGlob(channelPrefix)}*`;
  }

  async publish<T extends keyof Topics & string>(topic: T, payload: Topics[T]): Promise<void> {
    this.open();
    const id = `${this.origin}:${++this.sequence}`;
    const outgoing: Outgoing = { topic, payload: JSON.stringify(payload) ?? 'null' };
    if (!(this.connection.up && this.subscribed)) return this.deliverHere(id, outgoing, false);
    this.unechoed.set(id, outgoing);
    try {
      await this.connection.commands().publish(this.channelPrefix + topic, `{"id":${JSON.stringify(id)},"payload":${outgoing.payload}}`);
    } catch (error) {
      this.connection.commandFailed('subscription event', error);
      if (this.unechoed.delete(id)) this.deliverHere(id, outgoing, true);
    }
  }

  subscribe<T extends keyof Topics & string>(topic: T): EventStream<Topics[T]> {
    this.open();
    return eventStream<Topics[T]>((listener) => this.listeners.add(topic, listener as (payload: unknown) => void));
  }

  /** Subscribed when Redis answers (boundedly); started all the same when it does not. */
  async start(): Promise<void> {
    this.open();
    await this.connection.connected();
    if (this.connection.up && this.subscribing) await within(this.subscribing, 4 * REDIS_COMMAND_TIMEOUT_MS);
  }

  async close(): Promise<void> {
    if (this.subscriber) this.connection.release(this.subscriber);
    this.subscriber = undefined;
    this.subscribed = false;
    if (this.ownsConnection) await this.connection.close();
    this.listeners.clear();
  }

  /** Subscribes on first use: a process that never publishes nor subscribes (a CLI command) opens nothing. */
  private open(): void {
    if (this.subscriber) return;
    // The subscription is made here at each connection, so that it is known to hold before an
    // event is sent through Redis (ioredis's own resubscription tells no one).
    const subscriber = this.connection.subscriber({ autoResubscribe: false });
    subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => this.deliver(channel, message));
    subscriber.on('ready', () => this.makeSubscription());
    subscriber.on('close', () => this.lost());
    this.subscriber = subscriber;
  }

  private makeSubscription(): void {
    const subscriber = this.subscriber;
    if (!subscriber) return;
    this.subscribing = subscriber.psubscribe(this.pattern).then(
      () => void (this.subscribed = this.subscriber === subscriber && subscriber.status === 'ready'),
      () => undefined,
    );
  }

  /** The subscription is gone: what was sent through Redis and has not come back is delivered here. */
  private lost(): void {
    this.subscribed = false;
    for (const [id, outgoing] of this.unechoed) this.deliverHere(id, outgoing, true);
    this.unechoed.clear();
  }

  private deliverHere(id: string, outgoing: Outgoing, mayComeBack: boolean): void {
    if (mayComeBack) this.remember(id);
    this.listeners.deliver(outgoing.topic, JSON.parse(outgoing.payload));
  }

  private remember(id: string): void {
    this.deliveredHere.add(id);
    if (this.deliveredHere.size > MAX_REMEMBERED_IDS) this.deliveredHere.delete(this.deliveredHere.values().next().value!);
  }

  private deliver(channel: string, message: string): void {
    let event: { id?: unknown; payload?: unknown };
    try {
      event = JSON.parse(message) as { id?: unknown; payload?: unknown };
    } catch {
      this.logger.warn({ channel }, 'ignored a malformed event message');
      return;
    }
    if (typeof event !== 'object' || event === null || typeof event.id !== 'string') {
      this.logger.warn({ channel }, 'ignored a malformed event message');
      return;
    }
    if (this.deliveredHere.delete(event.id)) return;
    this.unechoed.delete(event.id);
    this.listeners.deliver(channel.slice(this.channelPrefix.length), event.payload);
  }
}

/** The prefix as a literal in a Redis glob pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}
