/**
 * ASP.NET Core Identity password hashes made with @noble/hashes' PBKDF2, independently of the
 * node:crypto PBKDF2 the service verifies them with.
 */
import { randomBytes } from 'node:crypto';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';

const PRFS = { sha1: [0, sha1], sha256: [1, sha256], sha512: [2, sha512] } as const;

/** V2: 0x00 ‖ salt(16) ‖ PBKDF2-HMAC-SHA1(password, salt, 1000, 32). */
export function aspNetV2Hash(password: string): string {
  const salt = randomBytes(16);
  const subkey = pbkdf2(sha1, new TextEncoder().encode(password), salt, { c: 1000, dkLen: 32 });
  return Buffer.concat([Buffer.from([0]), salt, Buffer.from(subkey)]).toString('base64');
}

/** V3: 0x01 ‖ PRF ‖ iterations ‖ salt length (uint32 BE each) ‖ salt ‖ subkey. */
export function aspNetV3Hash(password: string, prf: keyof typeof PRFS, iterations: number, saltBytes = 16, subkeyBytes = 32): string {
  const [id, hash] = PRFS[prf];
  const salt = randomBytes(saltBytes);
  const subkey = pbkdf2(hash, new TextEncoder().encode(password), salt, { c: iterations, dkLen: subkeyBytes });
  return Buffer.concat([v3Header(id, iterations, saltBytes), salt, Buffer.from(subkey)]).toString('base64');
}

/**
 * A V3 hash with these parameters and a random subkey, computed by nothing: how a hostile row
 * looks (10,000,000 iterations, a 256-byte subkey) without spending what it asks for.
 */
export function aspNetV3HashShape(prf: keyof typeof PRFS, iterations: number, saltBytes = 16, subkeyBytes = 32): string {
  return Buffer.concat([v3Header(PRFS[prf][0], iterations, saltBytes), randomBytes(saltBytes + subkeyBytes)]).toString('base64');
}

/** Something that begins as V2 (0x00) but is `totalBytes` long: V2 has one layout, of 49 bytes. */
export function aspNetV2HashOfLength(totalBytes: number): string {
  return Buffer.concat([Buffer.from([0]), randomBytes(totalBytes - 1)]).toString('base64');
}

function v3Header(prfId: number, iterations: number, saltBytes: number): Buffer {
  const header = Buffer.alloc(13);
  header[0] = 1;
  header.writeUInt32BE(prfId, 1);
  header.writeUInt32BE(iterations, 5);
  header.writeUInt32BE(saltBytes, 9);
  return header;
}
