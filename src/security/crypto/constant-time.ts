import { timingSafeEqual } from 'node:crypto';

/** Compares two secrets (or their digests) without leaking where they differ. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
