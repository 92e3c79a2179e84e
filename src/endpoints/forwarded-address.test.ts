import { describe, expect, it } from 'vitest';
import { forwardedAddress } from './forwarded-address.ts';

const forwardedFor = (value?: string) => new Headers(value === undefined ? {} : { 'x-forwarded-for': value });

describe('forwardedAddress', () => {
  it('reads no address without TRUST_PROXY, whatever the client wrote', () => {
    expect(forwardedAddress(false)(forwardedFor('203.0.113.9'))).toBe('');
  });

  it('takes the entry that many hops from the right, the runtime’s proxy being the first hop', () => {
    const headers = forwardedFor('198.51.100.1, 203.0.113.9, 10.0.0.2');
    expect(forwardedAddress({ hops: 1 })(headers)).toBe('10.0.0.2');
    expect(forwardedAddress({ hops: 2 })(headers)).toBe('203.0.113.9');
    // Fewer entries than hops: the left-most, as proxy-addr answers.
    expect(forwardedAddress({ hops: 5 })(headers)).toBe('198.51.100.1');
  });

  it('skips the trusted proxies’ addresses from the right', () => {
    const read = forwardedAddress({ addresses: ['10.0.0.0/8'] });
    expect(read(forwardedFor('198.51.100.1, 203.0.113.9, 10.0.0.2'))).toBe('203.0.113.9');
    expect(read(forwardedFor('10.0.0.3, 10.0.0.2'))).toBe('10.0.0.3');
  });

  it('reads no address when the header is missing or empty', () => {
    expect(forwardedAddress({ hops: 1 })(forwardedFor())).toBe('');
    expect(forwardedAddress({ hops: 1 })(forwardedFor(' , '))).toBe('');
  });
});
