/**
 * RFC 6238 codes computed here with node:crypto, independently of the service's TOTP library,
 * so that a test's authenticator is not the code under test.
 */
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index === -1) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The 6-digit HOTP code (RFC 4226) of `counter`. */
function hotp(key: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac('sha1', key).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

/** The code an authenticator app shows for `sharedKey` (base32, spaces allowed), `stepOffset` 30-second steps from now. */
export function totpCode(sharedKey: string, stepOffset = 0, now = Date.now()): string {
  return hotp(base32Decode(sharedKey), Math.floor(now / 1000 / 30) + stepOffset);
}
