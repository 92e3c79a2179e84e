import { describe, expect, it } from 'vitest';
import { SocketCounts } from './socket-counts.ts';

describe('SocketCounts', () => {
  it('admits up to the limit per key, frees a place once per release, and keeps other keys apart', () => {
    const counts = new SocketCounts(2);
    const first = counts.admit('user:1')!;
    expect(counts.admit('user:1')).not.toBeNull();
    expect(counts.admit('user:1')).toBeNull();
    expect(counts.admit('user:2')).not.toBeNull();
    first();
    first();
    expect(counts.admit('user:1')).not.toBeNull();
    expect(counts.admit('user:1')).toBeNull();
  });
});
