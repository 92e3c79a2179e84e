import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Antiforgery } from './antiforgery.ts';

const secret = () => randomBytes(32).toString('base64url');

describe('Antiforgery', () => {
  const antiforgery = new Antiforgery(secret());

  it('accepts the request token derived from the cookie token for the same user', () => {
    const cookie = antiforgery.newCookieToken();
    expect(antiforgery.validate(cookie, antiforgery.requestToken(cookie, null), null)).toBe(true);
    expect(antiforgery.validate(cookie, antiforgery.requestToken(cookie, '7'), '7')).toBe(true);
  });

  it('refuses a request token made for another cookie, another user or under another secret', () => {
    const cookie = antiforgery.newCookieToken();
    const other = antiforgery.newCookieToken();
    expect(antiforgery.validate(cookie, antiforgery.requestToken(other, null), null)).toBe(false);
    expect(antiforgery.validate(cookie, antiforgery.requestToken(cookie, '7'), '8')).toBe(false);
    expect(antiforgery.validate(cookie, antiforgery.requestToken(cookie, '7'), null)).toBe(false);
    expect(antiforgery.validate(cookie, new Antiforgery(secret()).requestToken(cookie, null), null)).toBe(false);
  });

  it('refuses missing, malformed and non-string tokens without throwing', () => {
    const cookie = antiforgery.newCookieToken();
    const field = antiforgery.requestToken(cookie, null);
    expect(antiforgery.validate(undefined, field, null)).toBe(false);
    expect(antiforgery.validate(cookie, undefined, null)).toBe(false);
    expect(antiforgery.validate(cookie, [field], null)).toBe(false);
    expect(antiforgery.validate(cookie, '', null)).toBe(false);
    expect(antiforgery.validate(cookie, 'x'.repeat(10_000), null)).toBe(false);
    expect(antiforgery.validate('short', antiforgery.requestToken('short', null), null)).toBe(false);
    expect(antiforgery.validate(`${cookie}\u0000`, field, null)).toBe(false);
  });

  it('makes a new random cookie token each time', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => antiforgery.newCookieToken()));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
