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
 *
 * The header of a V3 hash says how much work checking it takes, so whoever writes a row chooses
 * the CPU every wrong guess at that account costs. Only hashes within the caps below are
 * accepted (at import, and at sign-in, where any other is "does not match" without computing
 * anything); docs/decisions/0048-aspnet-hash-caps.md has what a hash at the caps costs.
 */

const V3_PRFS = ['sha1', 'sha256', 'sha512'] as const;
const PRF_NAMES = ['HMAC-SHA1', 'HMAC-SHA256', 'HMAC-SHA512'] as const;
/**
 * The contract's cap. ASP.NET's own defaults are 10,000 (HMAC-SHA256, up to .NET 6) and 100,000
 * (HMAC-SHA512, .NET 7 on); applications that raised `IterationCount` rarely go past 600,000.
 */
const MAX_ITERATIONS = 1_000_000;
/** PBKDF2 runs all its iterations once per block of the digest's size: 64 bytes is 4 SHA-1 blocks. */
const MAX_SUBKEY_BYTES = 64;
const MIN_SUBKEY_BYTES = 16;
const MIN_SALT_BYTES = 8;
const MAX_SALT_BYTES = 256;
const V3_HEADER_BYTES = 13;
const V2_BYTES = 1 + 16 + 32;
/** Base64 of the longest acceptable V3 hash (header, largest salt, largest subkey), rounded up. */
const MAX_BASE64_LENGTH = 4 * Math.ceil((V3_HEADER_BYTES + MAX_SALT_BYTES + MAX_SUBKEY_BYTES) / 3);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface Pbkdf2Parameters {
  readonly digest: (typeof V3_PRFS)[number];
  readonly iterations: number;
  readonly salt: Buffer;
  readonly subkey: Buffer;
}

/** A stored hash read: the PBKDF2 to run, or why it is not accepted (a phrase that follows "the password hash"; never the hash). */
type Reading = { readonly parameters: Pbkdf2Parameters; readonly problem?: never } | { readonly problem: string; readonly parameters?: never };

/** Whether `storedHash` is an ASP.NET Core Identity hash Gatehouse accepts (in its format and within the caps). */
export function isAspNetPasswordHash(storedHash: string): boolean {
  return read(storedHash).parameters !== undefined;
}

/**
 * Why `storedHash` is not an acceptable ASP.NET Core Identity hash, as a phrase to follow "the
 * password hash" (e.g. "has 5000000 iterations; at most 1000000 are accepted"); null when it is
 * acceptable. Names counts and lengths, never the hash's bytes.
 */
export function aspNetPasswordHashProblem(storedHash: string): string | null {
  return read(storedHash).problem ?? null;
}

/** True when `password` matches; false for a wrong password and, at once, for anything not accepted. */
export async function verifyAspNetPasswordHash(storedHash: string, password: string): Promise<boolean> {
  const { parameters } = read(storedHash);
  if (parameters === undefined) return false;
  const { digest, iterations, salt, subkey } = parameters;
  const derived = await inTurn(() => pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, subkey.length, digest));
  return timingSafeEqual(derived, subkey);
}

/**
 * One PBKDF2 of an imported hash at a time. They run on libuv's pool of four threads, which
 * Argon2id's verifications share, and Argon2id's workers run at low priority: a few guesses at
 * accounts with costly imported hashes (a second and more each, at the caps) would otherwise
 * hold every thread and the cores, and every other sign-in would wait behind them (seen: 3–5 s
 * for a 20 ms check, against 19 ms in turn, decision 0048). The price is the rate at which
 * imported users first sign in (about 11 a second per instance at ASP.NET's default of 100,000
 * SHA-512 iterations), each of whom is re-hashed to Argon2id then, once.
 */
const PBKDF2_AT_ONCE = 1;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < PBKDF2_AT_ONCE) running += 1;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // a finishing one hands over its place
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next();
  }
}

function read(storedHash: string): Reading {
  // Measured before decoding, so that a huge value costs nothing.
  if (storedHash.length > MAX_BASE64_LENGTH) return { problem: `is ${storedHash.length} characters long, longer than any accepted ASP.NET Core Identity hash` };
  if (!BASE64.test(storedHash)) return { problem: 'is not base64, so not an ASP.NET Core Identity V2 or V3 hash' };
  const bytes = Buffer.from(storedHash, 'base64');
  if (bytes[0] === 0x00) return readV2(bytes);
  if (bytes[0] === 0x01) return readV3(bytes);
  return { problem: 'begins with neither 0x00 (V2) nor 0x01 (V3), so is not an ASP.NET Core Identity hash' };
}

/** V2 has one layout only; any other length is something else. */
function readV2(bytes: Buffer): Reading {
  if (bytes.length !== V2_BYTES) {
    return { problem: `is a V2 hash of ${bytes.length} bytes; V2 is exactly ${V2_BYTES} (0x00, a 16-byte salt, a 32-byte subkey)` };
  }
  return { parameters: { digest: 'sha1', iterations: 1000, salt: bytes.subarray(1, 17), subkey: bytes.subarray(17) } };
}

function readV3(bytes: Buffer): Reading {
  if (bytes.length < V3_HEADER_BYTES) return { problem: `is a V3 hash of ${bytes.length} bytes, shorter than its ${V3_HEADER_BYTES}-byte header` };
  const prf = bytes.readUInt32BE(1);
  const digest = V3_PRFS[prf];
  if (digest === undefined) return { problem: `names PRF ${prf}, which ASP.NET does not have; its PRFs are ${PRF_NAMES.map((name, id) => `${id} (${name})`).join(', ')}` };
  const iterations = bytes.readUInt32BE(5);
  if (iterations < 1) return { problem: 'has 0 iterations; at least 1 is needed' };
  if (iterations > MAX_ITERATIONS) return { problem: `has ${iterations} iterations; at most ${MAX_ITERATIONS} are accepted` };
  const saltLength = bytes.readUInt32BE(9);
  if (saltLength < MIN_SALT_BYTES || saltLength > MAX_SALT_BYTES) {
    return { problem: `has a ${saltLength}-byte salt; ${MIN_SALT_BYTES} to ${MAX_SALT_BYTES} bytes are accepted` };
  }
  const subkeyLength = bytes.length - V3_HEADER_BYTES - saltLength;
  if (subkeyLength > MAX_SUBKEY_BYTES) {
    return { problem: `has a ${subkeyLength}-byte subkey (${blocks(subkeyLength, digest)} PBKDF2 blocks of ${PRF_NAMES[prf]}); at most ${MAX_SUBKEY_BYTES} bytes are accepted` };
  }
  if (subkeyLength < 0) return { problem: `is a V3 hash of ${bytes.length} bytes, too short for the ${saltLength}-byte salt its header announces` };
  if (subkeyLength < MIN_SUBKEY_BYTES) return { problem: `has a ${subkeyLength}-byte subkey; at least ${MIN_SUBKEY_BYTES} bytes are needed` };
  return { parameters: { digest, iterations, salt: bytes.subarray(V3_HEADER_BYTES, V3_HEADER_BYTES + saltLength), subkey: bytes.subarray(V3_HEADER_BYTES + saltLength) } };
}

/** PBKDF2 computes its iterations once per digest-sized block of the subkey. */
function blocks(subkeyLength: number, digest: Pbkdf2Parameters['digest']): number {
  const digestBytes = { sha1: 20, sha256: 32, sha512: 64 }[digest];
  return Math.ceil(subkeyLength / digestBytes);
}
