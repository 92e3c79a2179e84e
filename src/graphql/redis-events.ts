import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createRedis } from '../platform/redis.ts';
import { eventStream } from './event-stream.ts';
import type { Events, EventStream, EventTopics } from './events.ts';
import { TopicListeners } from './topic-listeners.ts';

/**
 * Events shared by every instance through Redis pub/sub (docs/reference/graphql.md and docs/reference/persistence.md): a payload is
 * published to its topic's channel, and each instance — this one included — hands what arrives to
 * its own subscribers, so every subscriber gets it exactly once wherever it was published. One
 * pattern subscription covers every topic, made at start: a subscriber added later misses nothing
 * published after it, whatever its topic. Each message is parsed once for all its subscribers.
 */
export class RedisEvents<Topics extends EventTopics> implements Events<Topics> {
  private readonly listeners = new TopicListeners();
  private connections: { publisher: Redis; subscriber: Redis; ready: Promise<unknown> } | undefined;

  constructor(
    private readonly redisUrl: string,
    private readonly channelPrefix: string,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  async publish<T extends keyof Topics & string>(topic: T, payload: Topics[T]): Promise<void> {
    const { publisher, ready } = this.open();
    await ready;
    await publisher.publish(this.channelPrefix + topic, JSON.stringify(payload));
  }

  subscribe<T extends keyof Topics & string>(topic: T): EventStream<Topics[T]> {
    this.open();
    return eventStream<Topics[T]>((listener) => this.listeners.add(topic, listener as (payload: unknown) => void));
  }

  async start(): Promise<void> {
    await this.open().ready;
  }

  async close(): Promise<void> {
    this.connections?.publisher.disconnect();
    this.connections?.subscriber.disconnect();
    this.connections = undefined;
    this.listeners.clear();
  }

  /** Connects on first use: a process that never publishes nor subscribes (a CLI command) opens nothing. */
  private open(): NonNullable<RedisEvents<Topics>['connections']> {
    if (this.connections === undefined) {
      const publisher = this.connect();
      const subscriber = this.connect();
      subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => this.deliver(channel, message));
      this.connections = { publisher, subscriber, ready: subscriber.psubscribe(`${escapeGlob(this.channelPrefix)}*`) };
    }
    return this.connections;
  }

  private deliver(channel: string, message: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(message);
    } catch {
      this.logger.warn({ channel }, 'ignored a malformed event message');
      return;
    }
    this.listeners.deliver(channel.slice(this.channelPrefix.length), payload);
  }

  private connect(): Redis {
    const client = createRedis(this.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
    client.on('error', (error: unknown) => this.logger.warn({ err: error }, 'Redis connection problem'));
    return client;
  }
}

/** The prefix as a literal in a Redis glob pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}
