import type { RedisConnection } from '../platform/redis-connection.ts';
import { BoundedCache, stringBytes } from './bounded-cache.ts';
import { documentHash } from './trusted-documents.ts';

/** Every key this service writes for automatic persisted queries starts with this (then the hash). */
export const PERSISTED_QUERY_KEY_PREFIX = 'gatehouse:apq:';
/** How long Redis keeps a registered document: a client whose hash was forgotten sends the query again. */
export const PERSISTED_QUERY_TTL_SECONDS = 3600;
/**
 * The longest document registered, in characters. A longer one still runs when sent in full; it
 * is only not remembered (the client sends it in full each time), so that neither this process
 * nor Redis holds large texts for whoever sends them.
 */
export const PERSISTED_DOCUMENT_MAX_CHARS = 64 * 1024;
/** This instance's memory of registered documents (texts and hashes), the least recently used dropped first. */
const LOCAL_BUDGET_BYTES = 8 * 1024 * 1024;

/**
 * Automatic persisted queries (Apollo's protocol): a document registered under its SHA-256 by a
 * client that sent both, so that its later requests send the hash alone. Kept in this process
 * (bounded in bytes) and, with Redis, for every instance with a time to live, so that a hash
 * registered on one instance is known on another. Nothing is registered here that the caller
 * has not checked (hash, limits, validation) first; what comes back from Redis is hashed again.
 */
export class PersistedQueries {
  private readonly local = new BoundedCache<string>(LOCAL_BUDGET_BYTES, 2 * PERSISTED_DOCUMENT_MAX_CHARS + 1024);

  constructor(private readonly redis: RedisConnection | null) {}

  /** The document registered under `hash`, here or on another instance; undefined when none is (or Redis does not answer). */
  async get(hash: string): Promise<string | undefined> {
    const known = this.local.get(hash);
    if (known !== undefined || this.redis === null) return known;
    await this.redis.connected();
    if (!this.redis.up) return undefined;
    let text: string | null;
    try {
      text = await this.redis.commands().get(PERSISTED_QUERY_KEY_PREFIX + hash);
    } catch (error) {
      this.redis.commandFailed('GET of a persisted query', error);
      return undefined;
    }
    // Whoever could write the key could not make this instance run another document under the hash.
    if (text === null || text.length > PERSISTED_DOCUMENT_MAX_CHARS || documentHash(text) !== hash) return undefined;
    this.remember(hash, text, { shared: false });
    return text;
  }

  /**
   * Registers `text` under `hash` (its SHA-256, checked by the caller, as are the document limits):
   * here at once, and in Redis without waiting (a failure only means another instance asks the
   * client for the query once more). Texts over PERSISTED_DOCUMENT_MAX_CHARS are not registered.
   */
  remember(hash: string, text: string, { shared = true }: { shared?: boolean } = {}): void {
    if (text.length > PERSISTED_DOCUMENT_MAX_CHARS) return;
    this.local.set(hash, text, stringBytes(text));
    if (shared) void this.share(hash, text);
  }

  private async share(hash: string, text: string): Promise<void> {
    const { redis } = this;
    if (redis === null) return;
    await redis.connected();
    if (!redis.up) return;
    try {
      await redis.commands().set(PERSISTED_QUERY_KEY_PREFIX + hash, text, 'EX', PERSISTED_QUERY_TTL_SECONDS);
    } catch (error) {
      redis.commandFailed('SET of a persisted query', error);
    }
  }
}
