import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { inEnglish } from '../i18n/phrase.ts';
import { isCommonPassword, passwordProblems } from './password-policy.ts';

const TOO_COMMON = 'This password is one of the most common passwords; choose another.';

/** The reasons in English, as a problem's `errors` carry them without a language asked. */
function problems(password: string, minLength: number): string[] {
  return passwordProblems(password, minLength).map(inEnglish);
}

describe('passwordProblems', () => {
  it('refuses a top password in any case, and in a compatibility form that NFKC folds to it', () => {
    for (const password of ['password', 'PASSWORD', 'PassWord', 'iloveyou', 'Qwertyuiop', 'ｐａｓｓｗｏｒｄ']) {
      expect(problems(password, 8)).toEqual([TOO_COMMON]);
    }
  });

  it('accepts a long random password', () => {
    expect(problems(randomBytes(24).toString('base64url'), 8)).toEqual([]);
  });

  it('knows the most common passwords, and not a passphrase', () => {
    expect(isCommonPassword('123456')).toBe(true);
    expect(isCommonPassword('baseball')).toBe(true);
    expect(isCommonPassword('correct horse battery staple')).toBe(false);
  });

  it('checks the length first, so a short common password gets the length message', () => {
    expect(problems('123456', 8)).toEqual(['The password must have at least 8 characters.']);
  });

  it('accepts 128 code points and refuses 129', () => {
    expect(problems('a'.repeat(127) + 'b', 8)).toEqual([]);
    expect(problems('a'.repeat(128) + 'b', 8)).toEqual(['The password must have at most 128 characters.']);
  });

  it('counts astral characters as one code point each, not two UTF-16 units', () => {
    const emoji = '😀'; // U+1F600: two UTF-16 code units, one code point
    expect(emoji.repeat(128).length).toBe(256);
    expect(problems(emoji.repeat(128), 8)).toEqual([]);
    expect(problems(emoji.repeat(129), 8)).toEqual(['The password must have at most 128 characters.']);
    expect(problems(emoji.repeat(4), 8)).toEqual(['The password must have at least 8 characters.']);
    expect(problems(emoji.repeat(8), 8)).toEqual([]);
  });
});
