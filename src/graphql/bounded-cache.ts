/** What a Map entry costs besides its key and value: the entry, the record of its size. */
const ENTRY_OVERHEAD_BYTES = 64;

/**
 * Entries kept up to a budget in bytes, keys included, the least recently used dropped first.
 * An entry larger than `largestBytes` is not kept at all: a few huge keys or values would
 * otherwise push out everything else. The sizes of values are the caller's estimate; keys are
 * counted here, at the bytes V8 stores them in.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private used = 0;

  constructor(
    private readonly budgetBytes: number,
    private readonly largestBytes: number,
  ) {}

  /** Bytes held now, keys included. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Map keeps insertion order: moved to the end, the entry is the last to go.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` (of about `valueBytes`) under `key`, unless the two together are too large. */
  set(key: string, value: V, valueBytes: number): void {
    this.delete(key);
    // Checked on the length first, so that a huge key is never scanned.
    if (key.length + valueBytes + ENTRY_OVERHEAD_BYTES > this.largestBytes) return;
    const bytes = stringBytes(key) + valueBytes + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.largestBytes) return;
    this.entries.set(key, { value, bytes });
    this.used += bytes;
    for (const [oldKey, old] of this.entries) {
      if (this.used <= this.budgetBytes) break;
      this.entries.delete(oldKey);
      this.used -= old.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  private delete(key: string): void {
    const previous = this.entries.get(key);
    if (previous === undefined) return;
    this.entries.delete(key);
    this.used -= previous.bytes;
  }
}

/** A string's size as V8 stores it: one byte a character while all are Latin-1, else two. */
export function stringBytes(text: string): number {
  return /[^\u0000-\u00ff]/.test(text) ? text.length * 2 : text.length;
}
