import type { Random } from '../platform/random.ts';
import { sha256Hex } from '../security/crypto/digest.ts';

/** Confirmation links work for a day (docs/reference/http.md). */
export const CONFIRMATION_CODE_MS = 24 * 60 * 60 * 1000;
/** Reset links work for an hour (docs/reference/http.md). */
export const RESET_CODE_MS = 60 * 60 * 1000;

/** A code for a mailed link: 256 random bits, URL-safe (docs/reference/membership.md asks for at least 128). */
export function newAccountCode(random: Random): string {
  return random.bytes(32).toString('base64url');
}

/** What the store keeps of a code. Codes carry 256 bits, so a fast hash is enough (no guessing to slow down). */
export function accountCodeHash(code: string): string {
  return sha256Hex(code);
}

/** Codes as `newAccountCode` writes them; anything else is refused unread. */
export function isAccountCodeShape(code: unknown): code is string {
  return typeof code === 'string' && /^[A-Za-z0-9_-]{43}$/.test(code);
}
