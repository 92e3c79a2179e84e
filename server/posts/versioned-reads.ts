import type { DataVersion } from 'gatehouse-auth/store';

/**
 * What the store answered to a read, kept while the store's data version stays where it was when
 * the read ran: the next look after any commit, by this process or by another one on the same
 * database, finds nothing kept (the version and its guarantees are the store's: SQLite's own
 * writes are counted before they run, other processes' commits are seen from the next turn of the
 * event loop, decision 0024). A store that cannot tell its version (null: PostgreSQL) keeps
 * nothing, and every read goes to the database.
 *
 * Answers are shared by every request that reads them while the version holds, so they are frozen:
 * a resolver cannot change what the next caller gets. At most `maxEntries` are kept, the oldest
 * dropped first.
 */
export class VersionedReads<K, V> {
  private readonly kept = new Map<K, V>();
  private version: number | null = null;

  constructor(
    private readonly dataVersion: DataVersion | null,
    private readonly maxEntries: number,
  ) {}

  /** The version now, with every answer of an older one dropped; null when nothing can be kept. */
  currentVersion(): number | null {
    const version = this.dataVersion?.current() ?? null;
    if (version !== this.version) {
      this.kept.clear();
      this.version = version;
    }
    return version;
  }

  /** The answer kept for `key` at the version `currentVersion()` just returned. */
  get(key: K): V | undefined {
    return this.kept.get(key);
  }

  /**
   * Keeps `value`, read since `currentVersion()` returned `version`, unless the version has moved
   * since (the read may have missed a write: the next `currentVersion()` drops it anyway).
   */
  set(key: K, value: V, version: number): void {
    if (version !== this.version) return;
    if (!this.kept.has(key) && this.kept.size >= this.maxEntries) this.kept.delete(this.kept.keys().next().value as K);
    this.kept.set(key, deepFreeze(value));
  }

  /** The kept answer, or `load()`'s, kept for the next reads while the version holds. */
  async read(key: K, load: () => Promise<V>): Promise<V> {
    const version = this.currentVersion();
    if (version === null) return load();
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const value = await load();
    this.set(key, value, version);
    return value;
  }
}

/** Plain data from the store: objects and arrays, frozen all the way down. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
}
