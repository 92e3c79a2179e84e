import { describe, expect, it } from 'vitest';
import { cryptoRandom, type Random } from './random.ts';

const WINDOW = 4;

/**
 * How many 4-byte windows of a draw already appeared in an earlier draw, at any offset. Fresh
 * randomness repeats a 32-bit window by chance about once in a few hundred runs of this size;
 * a source that hands any 4 bytes out twice repeats one in nearly every draw.
 */
function windowsSeenBefore(draws: readonly Buffer[]): number {
  const seen = new Map<number, number>();
  let repeated = 0;
  draws.forEach((draw, index) => {
    for (let offset = 0; offset + WINDOW <= draw.length; offset++) {
      const window = draw.readUInt32BE(offset);
      const earlier = seen.get(window);
      if (earlier !== undefined && earlier !== index) repeated++;
      else seen.set(window, index);
    }
  });
  return repeated;
}

/** 200 draws of the sizes the service asks for (IVs, tokens, codes). */
function drawFrom(random: Random): Buffer[] {
  const sizes = [12, 16, 32, 44];
  return Array.from({ length: 200 }, (_, index) => random.bytes(sizes[index % sizes.length]!));
}

/** A broken source for the check below: each draw starts with the last 4 bytes of the one before. */
function reusingRandom(): Random {
  let tail = Buffer.alloc(0);
  return {
    bytes(length) {
      const drawn = cryptoRandom.bytes(length);
      tail.copy(drawn, 0, 0, Math.min(tail.length, length));
      tail = Buffer.from(drawn.subarray(length - WINDOW));
      return drawn;
    },
  };
}

describe('cryptoRandom', () => {
  it('hands no 4 bytes out twice across draws', () => {
    expect(windowsSeenBefore(drawFrom(cryptoRandom))).toBeLessThanOrEqual(2);
  });

  it('the reuse check catches a source that repeats 4 bytes of every draw', () => {
    expect(windowsSeenBefore(drawFrom(reusingRandom()))).toBeGreaterThan(100);
  });

  it('draws the lengths asked for, large ones and empty ones included', () => {
    expect(cryptoRandom.bytes(0)).toHaveLength(0);
    const large = cryptoRandom.bytes(10_000);
    expect(large).toHaveLength(10_000);
    // Not a zero-filled buffer: a failed draw would leave one.
    expect(large.subarray(0, 64).equals(Buffer.alloc(64))).toBe(false);
  });

  it('gives each caller a buffer of its own, never a view onto shared memory', () => {
    const first = cryptoRandom.bytes(12);
    const second = cryptoRandom.bytes(12);
    first.fill(0);
    expect(second.equals(Buffer.alloc(12))).toBe(false);
    expect(first.buffer).not.toBe(second.buffer);
  });
});
