/** One fixed window's count after a hit, and when the window ends. */
export interface WindowCount {
  readonly count: number;
  /** Milliseconds until the window ends and the count starts again from 0. */
  readonly resetInMs: number;
}

/**
 * Where rate-limit counters live: per instance (memory) or shared (Redis). A window opens at
 * the first hit of its key and lasts `windowMs`; every hit counts, refused ones included.
 */
export interface WindowStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}
