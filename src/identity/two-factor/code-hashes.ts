import { createHmac, hkdfSync } from 'node:crypto';

/**
 * Keyed hashes of short codes (six digits, recovery codes). A plain hash of a six-digit code is
 * undone by trying all million; under a key from the key ring a database dump alone reveals
 * nothing. The key is derived for this purpose only.
 */
export class CodeHasher {
  private readonly key: Buffer;

  constructor(ringSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', ringSecret, 'gatehouse', 'two-factor code hashes v1', 32));
  }

  hash(purpose: string, code: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\0${code}`).digest('hex');
  }
}
