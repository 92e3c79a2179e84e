import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { isCommonPassword, passwordProblems } from './password-policy.ts';

const TOO_COMMON = 'This password is one of the most common passwords; choose another.';

describe('passwordProblems', () => {
  it('refuses a top password in any case, and in a compatibility form that NFKC folds to it', () => {
    for (const password of ['password', 'PASSWORD', 'PassWord', 'iloveyou', 'Qwertyuiop', 'ｐａｓｓｗｏｒｄ']) {
      expect(passwordProblems(password, 8)).toEqual([TOO_COMMON]);
    }
  });

  it('accepts a long random password', () => {
    expect(passwordProblems(randomBytes(24).toString('base64url'), 8)).toEqual([]);
  });

  it('knows the most common passwords, and not a passphrase', () => {
    expect(isCommonPassword('123456')).toBe(true);
    expect(isCommonPassword('baseball')).toBe(true);
    expect(isCommonPassword('correct horse battery staple')).toBe(false);
  });

  it('checks the length first, so a short common password gets the length message', () => {
    expect(passwordProblems('123456', 8)).toEqual(['The password must have at least 8 characters.']);
  });

  it('accepts 128 code points and refuses 129', () => {
    expect(passwordProblems('a'.repeat(127) + 'b', 8)).toEqual([]);
    expect(passwordProblems('a'.repeat(128) + 'b', 8)).toEqual(['The password must have at most 128 characters.']);
  });

  it('counts astral characters as one code point each, not two UTF-16 units', () => {
    const emoji = '😀'; // U+1F600: two UTF-16 code units, one code point
    expect(emoji.repeat(128).length).toBe(256);
    expect(passwordProblems(emoji.repeat(128), 8)).toEqual([]);
    expect(passwordProblems(emoji.repeat(129), 8)).toEqual(['The password must have at most 128 characters.']);
    expect(passwordProblems(emoji.repeat(4), 8)).toEqual(['The password must have at least 8 characters.']);
    expect(passwordProblems(emoji.repeat(8), 8)).toEqual([]);
  });
});
