import { describe, expect, it } from 'vitest';
import { CookieProtector } from './cookie-protector.ts';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA';

describe('CookieProtector', () => {
  const protector = new CookieProtector(SECRET, 'gh.auth');

  it('opens what it sealed, and seals the same value differently each time', () => {
    const a = protector.protect('session-token');
    const b = protector.protect('session-token');
    expect(a).not.toBe(b);
    expect(protector.unprotect(a)).toBe('session-token');
    expect(a).not.toContain('session-token');
  });

  it('refuses a value with any byte flipped: first, middle, last (the tag)', () => {
    const sealed = Buffer.from(protector.protect('session-token'), 'base64url');
    for (const index of [0, Math.floor(sealed.length / 2), sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[index]! ^= 1;
      expect(protector.unprotect(tampered.toString('base64url'))).toBeNull();
    }
  });

  it('refuses a truncated value, trailing junk, and another spelling of the same bytes', () => {
    const sealed = protector.protect('session-token');
    expect(protector.unprotect(sealed.slice(0, -1))).toBeNull();
    expect(protector.unprotect(`${sealed}AA`)).toBeNull();
    expect(protector.unprotect(`${sealed}=`)).toBeNull();
    const standard = Buffer.from(sealed, 'base64url').toString('base64');
    if (standard !== sealed) expect(protector.unprotect(standard)).toBeNull();
  });

  it('refuses a value sealed under another secret or for another purpose', () => {
    const foreign = new CookieProtector('another-environment-secret', 'gh.auth').protect('session-token');
    const otherPurpose = new CookieProtector(SECRET, 'gh.2fa').protect('session-token');
    expect(protector.unprotect(foreign)).toBeNull();
    expect(protector.unprotect(otherPurpose)).toBeNull();
  });

  it('refuses garbage, empty and over-long values without throwing', () => {
    for (const value of ['', 'x', '!!!', 'plain.v1.c2Vzc2lvbg', 'A'.repeat(5000)]) expect(protector.unprotect(value)).toBeNull();
  });
});
