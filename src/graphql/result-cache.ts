import type { DataVersion } from '../store/ports.ts';

/** What the kept answers may add up to, in characters, and the largest one kept. */
const BUDGET_CHARS = 4 * 1024 * 1024;
const LARGEST_CHARS = 256 * 1024;

/**
 * Serialized answers to queries that every caller gets alike, kept while the store's data
 * version stays where it was when they were computed: the next read after any commit, by this
 * process or another, finds the cache empty. A store that cannot tell its version (null) keeps
 * nothing. Which queries qualify is the caller's decision (GraphQLService).
 */
export class ResultCache {
  private readonly answers = new Map<string, string>();
  private chars = 0;
  private version: number | null = null;

  constructor(private readonly dataVersion: DataVersion | null) {}

  /**
   * The store's version now, with every answer of an older one dropped; null when nothing can
   * be kept. An answer computed from here on is for this version.
   */
  currentVersion(): number | null {
    const version = this.dataVersion?.current() ?? null;
    if (version !== this.version) {
      this.answers.clear();
      this.chars = 0;
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
    if (version !== this.version || answer.length > LARGEST_CHARS) return;
    const previous = this.answers.get(key);
    if (previous !== undefined) this.chars -= previous.length;
    this.answers.set(key, answer);
    this.chars += answer.length;
    // Oldest first: Map keeps insertion order.
    for (const [oldKey, old] of this.answers) {
      if (this.chars <= BUDGET_CHARS) break;
      this.answers.delete(oldKey);
      this.chars -= old.length;
    }
  }
}
