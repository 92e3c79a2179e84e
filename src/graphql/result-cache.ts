import type { DataVersion } from '../store/ports.ts';
import { BoundedCache, stringBytes } from './bounded-cache.ts';

/** What the kept answers and their keys may add up to, and the largest entry kept. */
const BUDGET_BYTES = 4 * 1024 * 1024;
const LARGEST_BYTES = 256 * 1024;

/**
 * Serialized answers to queries that every caller gets alike, kept while the store's data
 * version stays where it was when they were computed: the next read after any commit, by this
 * process or another, finds the cache empty. A store that cannot tell its version (null) keeps
 * nothing. Which queries qualify, and what identifies one, is the caller's decision (GraphQLService).
 */
export class ResultCache {
  private readonly answers = new BoundedCache<string>(BUDGET_BYTES, LARGEST_BYTES);
  private version: number | null = null;

  constructor(private readonly dataVersion: DataVersion | null) {}

  /** Bytes held, keys included (never above the budget). */
  get bytes(): number {
    return this.answers.bytes;
  }

  /**
   * The store's version now, with every answer of an older one dropped; null when nothing can
   * be kept. An answer computed from here on is for this version.
   */
  currentVersion(): number | null {
    const version = this.dataVersion?.current() ?? null;
    if (version !== this.version) {
      this.answers.clear();
      this.version = version;
    }
    return version;
  }

  /** The answer kept for `key`, valid for the version `currentVersion()` just returned. */
  get(key: string): string | undefined {
    return this.answers.get(key);
  }

  /**
   * Keeps `answer`, computed since `currentVersion()` returned `version`, unless the store has
   * moved on meanwhile (then the answer may already be stale and is dropped).
   */
  set(key: string, version: number, answer: string): void {
    if (version !== this.version || answer.length > LARGEST_BYTES) return;
    this.answers.set(key, answer, stringBytes(answer));
  }
}
