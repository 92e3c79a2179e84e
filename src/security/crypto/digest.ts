import { createHash } from 'node:crypto';

/** SHA-256 of a high-entropy secret (a token, an API key): enough at rest, no stretching needed. */
export function sha256(value: string | Uint8Array): Buffer {
  return createHash('sha256').update(value).digest();
}

export function sha256Hex(value: string | Uint8Array): string {
  return sha256(value).toString('hex');
}
