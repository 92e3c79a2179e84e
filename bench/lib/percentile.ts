/** Nearest-rank percentile (`fraction` 0.99 for p99) of values sorted ascending; 0 when there are none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}
