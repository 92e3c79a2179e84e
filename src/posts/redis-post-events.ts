import type { Redis } from 'ioredis';
import { createRedis } from '../platform/redis.ts';
import type { Logger } from 'pino';
import type { Post } from '../store/ports.ts';
import type { PostEvents } from './post-events.ts';

/** The Redis channel that carries new posts to every instance. */
const POSTS_CHANNEL = 'gatehouse:posts';

/**
 * Post events shared by every instance through Redis pub/sub (SPEC sections 6 and 8): a post is
 * published to the channel, and each instance — this one included — hands what arrives to its own
 * subscribers, so every subscriber gets it exactly once wherever it was created.
 */
export class RedisPostEvents implements PostEvents {
  private readonly listeners = new Set<(post: Post) => void>();
  private connections: { publisher: Redis; subscriber: Redis; ready: Promise<unknown> } | undefined;

  constructor(
    private readonly redisUrl: string,
    private readonly logger: Logger,
  ) {}

  async publish(post: Post): Promise<void> {
    const { publisher, ready } = this.open();
    await ready;
    await publisher.publish(POSTS_CHANNEL, JSON.stringify(post));
  }

  subscribe(listener: (post: Post) => void): () => void {
    this.open();
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribes to the channel now (the service does at start), so that no post published from here on is missed. */
  async start(): Promise<void> {
    await this.open().ready;
  }

  async close(): Promise<void> {
    this.connections?.publisher.disconnect();
    this.connections?.subscriber.disconnect();
    this.connections = undefined;
  }

  /** Connects on first use: a CLI command, which never publishes, opens nothing. */
  private open(): NonNullable<RedisPostEvents['connections']> {
    if (this.connections === undefined) {
      const publisher = this.connect(this.redisUrl);
      const subscriber = this.connect(this.redisUrl);
      subscriber.on('message', (_channel: string, message: string) => this.deliver(message));
      this.connections = { publisher, subscriber, ready: subscriber.subscribe(POSTS_CHANNEL) };
    }
    return this.connections;
  }

  private deliver(message: string): void {
    let post: Post;
    try {
      post = JSON.parse(message) as Post;
    } catch {
      this.logger.warn('ignored a malformed message on the posts channel');
      return;
    }
    for (const listener of this.listeners) listener(post);
  }

  private connect(redisUrl: string): Redis {
    const client = createRedis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
    client.on('error', (error: unknown) => this.logger.warn({ err: error }, 'Redis connection problem'));
    return client;
  }
}
