import { describe, expect, it } from 'vitest';
import { localReturnUrl, loginLocation } from './return-url.ts';

describe('localReturnUrl', () => {
  it('accepts local paths, with query and fragment', () => {
    for (const url of ['/', '/x', '/account/profile?tab=1', '/a/b#c', '/a\\b']) expect(localReturnUrl(url)).toBe(url);
  });

  it('refuses protocol-relative, backslash, absolute and relative URLs', () => {
    for (const url of ['//evil.example', '//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', 'x', '', ' /x']) {
      expect(localReturnUrl(url)).toBeNull();
    }
  });

  it('refuses control characters, which browsers may strip into another host', () => {
    for (const url of ['/\t/evil.example', '/\n/evil.example', '/x\r\nSet-Cookie: a=b', '/x\u0000', '/x\u007f']) expect(localReturnUrl(url)).toBeNull();
  });

  it('refuses what is not a string, and over-long values', () => {
    for (const value of [undefined, null, 1, ['/x'], { url: '/x' }, `/${'a'.repeat(2048)}`]) expect(localReturnUrl(value)).toBeNull();
  });
});

describe('loginLocation', () => {
  it('carries a local path, encoded, and drops anything else', () => {
    expect(loginLocation('/documents/1?x=a&y=b')).toBe('/account/login?ReturnUrl=%2Fdocuments%2F1%3Fx%3Da%26y%3Db');
    expect(loginLocation('//evil.example/x')).toBe('/account/login');
  });
});
