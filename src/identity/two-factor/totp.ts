import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as docs/reference/membership.md fixes it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** One step of clock drift each way. */
const WINDOW = 1;
/** RFC 4226 recommends 160 bits for HMAC-SHA-1 keys. */
const SECRET_BYTES = 20;

/** A new authenticator secret, base32 as authenticator apps take it. */
export function newAuthenticatorSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

function totp(secret: string, label = '', issuer = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });
}

/** The `otpauth://totp/…` URI an authenticator app reads from the QR code. */
export function otpauthUri(secret: string, account: string, issuer: string): string {
  return totp(secret, account, issuer).toString();
}

/** The shared key as a person types it: lower case, in groups of four (as ASP.NET shows it). */
export function formatSharedKey(secret: string): string {
  return secret.toLowerCase().replace(/(.{4})(?=.)/g, '$1 ');
}

/** What a person may type: six digits, spaces and dashes ignored. */
export function normalizeSixDigits(code: string): string | null {
  const digits = code.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * The time step whose code `code` is, within one step of `now` (epoch ms), or null. The caller
 * must still accept the step only once.
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  const digits = normalizeSixDigits(code);
  if (digits === null) return null;
  const delta = totp(secret).validate({ token: digits, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}
