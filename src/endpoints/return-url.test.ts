import { describe, expect, it } from 'vitest';
import { localReturnUrl } from './return-url.ts';

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

  it('percent-encodes what is not printable ASCII, in UTF-8, so that a Location header can carry it', () => {
    expect(localReturnUrl('/café?q=naïve')).toBe('/caf%C3%A9?q=na%C3%AFve');
    expect(localReturnUrl('/日本')).toBe('/%E6%97%A5%E6%9C%AC');
    expect(localReturnUrl('/\u{1F600}')).toBe('/%F0%9F%98%80');
    expect(localReturnUrl('/a b')).toBe('/a%20b');
    expect(localReturnUrl('/\uFF0Fevil.example')).toBe('/%EF%BC%8Fevil.example');
    expect(localReturnUrl('/\u202Efdp.exe')).toBe('/%E2%80%AEfdp.exe');
    expect(localReturnUrl('/x\u0085y')).toBe('/x%C2%85y');
    expect(localReturnUrl('/already%20encoded')).toBe('/already%20encoded');
  });

  it('refuses half a surrogate pair, and a value that grows too long once encoded', () => {
    for (const url of ['/\uD800', '/x\uDC00y']) expect(localReturnUrl(url)).toBeNull();
    expect(localReturnUrl(`/${'é'.repeat(1000)}`)).toBeNull();
  });

  it('refuses what is not a string, and over-long values', () => {
    for (const value of [undefined, null, 1, ['/x'], { url: '/x' }, `/${'a'.repeat(2048)}`]) expect(localReturnUrl(value)).toBeNull();
  });
});
