import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/**
 * ASP.NET Core Identity's password hashes (`PasswordHasher<TUser>`), base64 of:
 *   V2: 0x00 ‖ salt (16) ‖ subkey (32), PBKDF2-HMAC-SHA1 with 1,000 iterations;
 *   V3: 0x01 ‖ PRF (uint32 BE: 0 SHA-1, 1 SHA-256, 2 SHA-512) ‖ iterations (uint32 BE)
 *       ‖ salt length (uint32 BE) ‖ salt ‖ subkey.
 * Verified here so that users imported from ASP.NET sign in with their old passwords, after which
 * the hash is replaced by Argon2id (docs/reference/membership.md).
 */

const V3_PRFS = ['sha1', 'sha256', 'sha512'] as const;
/** ASP.NET's own defaults top out at 600,000 (V3 on .NET 8); far more is an attack on our CPU. */
const MAX_ITERATIONS = 10_000_000;
const MIN_SALT_BYTES = 8;
const MAX_SALT_BYTES = 256;
const MIN_SUBKEY_BYTES = 16;
const MAX_SUBKEY_BYTES = 256;
/** The shortest base64 of a V2 or V3 hash; anything shorter is not one. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface Pbkdf2Parameters {
  readonly digest: (typeof V3_PRFS)[number];
  readonly iterations: number;
  readonly salt: Buffer;
  readonly subkey: Buffer;
}

/** Whether `storedHash` is in one of ASP.NET Core Identity's formats (not whether it is valid). */
export function isAspNetPasswordHash(storedHash: string): boolean {
  return parse(storedHash) !== null;
}

/** True when `password` matches; false for a wrong password and for anything malformed. */
export async function verifyAspNetPasswordHash(storedHash: string, password: string): Promise<boolean> {
  const parameters = parse(storedHash);
  if (parameters === null) return false;
  const { digest, iterations, salt, subkey } = parameters;
  const derived = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, subkey.length, digest);
  return timingSafeEqual(derived, subkey);
}

function parse(storedHash: string): Pbkdf2Parameters | null {
  if (storedHash.length < 60 || storedHash.length > 2048 || !BASE64.test(storedHash)) return null;
  const bytes = Buffer.from(storedHash, 'base64');
  if (bytes[0] === 0x00) return parseV2(bytes);
  if (bytes[0] === 0x01) return parseV3(bytes);
  return null;
}

function parseV2(bytes: Buffer): Pbkdf2Parameters | null {
  if (bytes.length !== 1 + 16 + 32) return null;
  return { digest: 'sha1', iterations: 1000, salt: bytes.subarray(1, 17), subkey: bytes.subarray(17) };
}

function parseV3(bytes: Buffer): Pbkdf2Parameters | null {
  if (bytes.length < 13) return null;
  const digest = V3_PRFS[bytes.readUInt32BE(1)];
  const iterations = bytes.readUInt32BE(5);
  const saltLength = bytes.readUInt32BE(9);
  if (digest === undefined || iterations < 1 || iterations > MAX_ITERATIONS) return null;
  if (saltLength < MIN_SALT_BYTES || saltLength > MAX_SALT_BYTES) return null;
  const subkeyLength = bytes.length - 13 - saltLength;
  if (subkeyLength < MIN_SUBKEY_BYTES || subkeyLength > MAX_SUBKEY_BYTES) return null;
  return { digest, iterations, salt: bytes.subarray(13, 13 + saltLength), subkey: bytes.subarray(13 + saltLength) };
}
