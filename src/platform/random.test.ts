import { describe, expect, it } from 'vitest';
import { PooledRandom } from './random.ts';

describe('PooledRandom', () => {
  it('hands out every byte once, across refills of its pool', () => {
    const random = new PooledRandom();
    // 1,000 draws of 44 bytes: about eleven pools, each refilled when the next draw no longer fits.
    const draws = Array.from({ length: 1_000 }, () => random.bytes(44).toString('hex'));
    expect(new Set(draws).size).toBe(draws.length);
    expect(draws.every((hex) => hex.length === 88 && hex !== '0'.repeat(88))).toBe(true);
  });

  it('gives each caller a buffer of its own, never a view onto the pool', () => {
    const random = new PooledRandom();
    const first = random.bytes(12);
    const second = random.bytes(12);
    expect(first.byteOffset).toBe(0);
    expect(first.buffer.byteLength).toBe(12);
    first.fill(0);
    expect(second.equals(Buffer.alloc(12))).toBe(false);
  });

  it('draws the lengths asked for, large ones and empty ones included', () => {
    const random = new PooledRandom();
    expect(random.bytes(0)).toHaveLength(0);
    expect(random.bytes(4095)).toHaveLength(4095);
    const large = random.bytes(10_000);
    expect(large).toHaveLength(10_000);
    // Not a zero-filled buffer: a failed draw would leave one.
    expect(large.subarray(0, 64).equals(Buffer.alloc(64))).toBe(false);
  });
});
