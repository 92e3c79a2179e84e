import type { Logger } from 'pino';
import { type OptionNames, refuseUnknownOptions } from '../config/option-names.ts';
import { RedisConnection } from '../platform/redis-connection.ts';
import { eventStream, type PushableStream } from './event-stream.ts';
import { RedisEvents } from './redis-events.ts';
import { TopicListeners } from './topic-listeners.ts';

/** Events of one topic as a subscription field's `subscribe` returns them; `return()` unsubscribes. */
export type EventStream<T> = PushableStream<T>;

/** Topics and the payload each carries; any topic and any payload unless the application says. */
export type EventTopics = Record<string, unknown>;

/**
 * Where an application publishes what its `Subscription` fields deliver: in memory for one
 * instance, or through Redis to every instance. A payload crosses Redis as JSON, so it should be
 * plain data; every subscriber of an instance receives the same object (not a copy to change).
 */
export interface Events<Topics extends EventTopics = EventTopics> {
  /** Hands `payload` to every subscriber of `topic`, on every instance when Redis carries them. */
  publish<T extends keyof Topics & string>(topic: T, payload: Topics[T]): Promise<void>;
  /** The payloads published to `topic` from now on, until the iterator is returned. */
  subscribe<T extends keyof Topics & string>(topic: T): EventStream<Topics[T]>;
  /** Ready to receive: with Redis, subscribed, so that nothing published from here on is missed. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface EventsOptions {
  /**
   * Through this Redis connection across instances: Gatehouse's (`app.gatehouse.redis`), so that
   * one state of Redis — up or away, told once in the log, seen by readiness — covers it too.
   */
  readonly redis?: RedisConnection | null | undefined;
  /** Or through a Redis connection of the events' own, to this URL; in memory, for this instance only, when neither is given. */
  readonly redisUrl?: string | null | undefined;
  /** Prefix of the Redis channels, one channel a topic. @default 'gatehouse:events:' */
  readonly channelPrefix?: string;
  /** Where Redis going away and coming back, and malformed messages, are told. */
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

const EVENTS_OPTIONS = { redis: true, redisUrl: true, channelPrefix: true, logger: true } as const satisfies OptionNames<EventsOptions>;

/**
 * The event source of an application's subscriptions: Redis with `redis` or `redisUrl`, else in
 * memory. While Redis is away, events reach the subscribers of the instance that published them.
 */
export function createEvents<Topics extends EventTopics = EventTopics>(options: EventsOptions = {}): Events<Topics> {
  refuseUnknownOptions('createEvents', options, EVENTS_OPTIONS);
  const logger = options.logger ?? SILENT;
  const channelPrefix = options.channelPrefix ?? 'gatehouse:events:';
  if (options.redis) return new RedisEvents<Topics>(options.redis, channelPrefix, logger, false);
  if (!options.redisUrl) return new InMemoryEvents<Topics>();
  return new RedisEvents<Topics>(new RedisConnection({ url: options.redisUrl, logger }), channelPrefix, logger, true);
}

const SILENT: Pick<Logger, 'warn' | 'info'> = { warn: () => undefined, info: () => undefined };

class InMemoryEvents<Topics extends EventTopics> implements Events<Topics> {
  private readonly listeners = new TopicListeners();

  async publish<T extends keyof Topics & string>(topic: T, payload: Topics[T]): Promise<void> {
    this.listeners.deliver(topic, payload);
  }

  subscribe<T extends keyof Topics & string>(topic: T): EventStream<Topics[T]> {
    return eventStream<Topics[T]>((listener) => this.listeners.add(topic, listener as (payload: unknown) => void));
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
