import { randomInt } from 'node:crypto';

/** docs/reference/membership.md: ten codes, each single use. */
export const RECOVERY_CODE_COUNT = 10;
/** Crockford-like base32 without the letters people mistake for digits (I, L, O, U): 5 bits a character. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Ten characters, 50 bits: `XXXXX-XXXXX`, as ASP.NET shows them. */
const HALF = 5;

function randomHalf(): string {
  let half = '';
  for (let i = 0; i < HALF; i++) half += ALPHABET[randomInt(ALPHABET.length)];
  return half;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${randomHalf()}-${randomHalf()}`);
}

/** The code as stored: upper case, spaces and dashes removed; null when it cannot be one. */
export function normalizeRecoveryCode(code: string): string | null {
  const compact = code.replace(/[\s-]/g, '').toUpperCase();
  return compact.length === 2 * HALF && [...compact].every((c) => ALPHABET.includes(c)) ? compact : null;
}
