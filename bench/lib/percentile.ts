/** Nearest-rank percentile (`fraction` 0.99 for p99) of values sorted ascending; 0 when there are none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/** The index of the median of `values` (the lower one for an even count); values need not be sorted. */
export function medianIndex(values: readonly number[]): number {
  if (values.length === 0) throw new Error('no values to take the median of');
  const byValue = values.map((_, at) => at).sort((a, b) => (values[a] as number) - (values[b] as number));
  return byValue[Math.floor((values.length - 1) / 2)] as number;
}
