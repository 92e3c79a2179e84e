import { describe, expect, it } from 'vitest';
import { BoundedCache, stringBytes } from './bounded-cache.ts';

describe('BoundedCache', () => {
  it('counts keys in its bytes, at one byte a Latin-1 character and two otherwise', () => {
    const cache = new BoundedCache<string>(10_000, 5_000);
    cache.set('k'.repeat(1000), 'v', 1);
    expect(cache.bytes).toBeGreaterThanOrEqual(1001);
    cache.set('é'.repeat(1000), 'v', 1);
    expect(cache.bytes).toBeGreaterThanOrEqual(1001 + 1001);
    cache.set('€'.repeat(1000), 'v', 1);
    expect(cache.bytes).toBeGreaterThanOrEqual(1001 + 1001 + 2001);
    expect(stringBytes('€')).toBe(2);
  });

  it('stays within its budget with large keys and small values, dropping the least recently used', () => {
    const cache = new BoundedCache<number>(100_000, 20_000);
    for (let i = 0; i < 1000; i += 1) {
      cache.set(`${i}:${'x'.repeat(10_000)}`, i, 8);
      if (i === 1) cache.get(`0:${'x'.repeat(10_000)}`);
      expect(cache.bytes).toBeLessThanOrEqual(100_000);
    }
    expect(cache.size).toBeLessThan(10);
    expect(cache.bytes).toBeGreaterThan(80_000);
    expect(cache.get(`999:${'x'.repeat(10_000)}`)).toBe(999);
    expect(cache.get(`0:${'x'.repeat(10_000)}`)).toBeUndefined();
  });

  it('keeps the recently used entries against a stream of new ones', () => {
    const cache = new BoundedCache<number>(1_000, 500);
    cache.set('hot', 1, 10);
    for (let i = 0; i < 100; i += 1) {
      cache.set(`cold ${i}`, i, 100);
      expect(cache.get('hot')).toBe(1);
    }
  });

  it('keeps no entry whose key and value together exceed the largest, and forgets what the key held', () => {
    const cache = new BoundedCache<string>(1_000_000, 1_000);
    cache.set('small', 'a', 10);
    cache.set('k'.repeat(990), 'b', 10);
    cache.set('small', 'c', 990);
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    expect(cache.get('small')).toBeUndefined();
  });
});
