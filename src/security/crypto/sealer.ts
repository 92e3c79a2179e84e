import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const ENCRYPTED = 'enc.v1.';
const PLAIN = 'plain.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The sealed value could not be opened: wrong secret, tampered, or sealed in another way. */
export class UnsealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsealError';
  }
}

/**
 * Seals secrets at rest with AES-256-GCM under a key derived from `KEYRING_SECRET` by HKDF.
 * Without a secret (allowed outside production) values are stored marked as plain, so a later
 * start with a secret can tell them apart and an encrypted ring never opens without one.
 */
export class Sealer {
  private readonly key: Buffer | null;

  constructor(secret: string | undefined) {
    this.key = secret === undefined ? null : Buffer.from(hkdfSync('sha256', secret, 'gatehouse', 'keyring seal v1', 32));
  }

  get encrypts(): boolean {
    return this.key !== null;
  }

  seal(plaintext: string): string {
    if (!this.key) return PLAIN + Buffer.from(plaintext, 'utf8').toString('base64url');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ENCRYPTED + [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
  }

  unseal(sealed: string): string {
    if (sealed.startsWith(PLAIN)) return Buffer.from(sealed.slice(PLAIN.length), 'base64url').toString('utf8');
    if (!sealed.startsWith(ENCRYPTED)) throw new UnsealError('The key ring holds a value in an unknown format.');
    if (!this.key) throw new UnsealError('The key ring is encrypted: set KEYRING_SECRET to the secret it was created with.');
    const parts = sealed.slice(ENCRYPTED.length).split('.').map((part) => Buffer.from(part, 'base64url'));
    const [iv, body, tag] = parts;
    if (parts.length !== 3 || iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES) {
      throw new UnsealError('The key ring cannot be opened with this KEYRING_SECRET: the sealed value is damaged.');
    }
    try {
      // The tag length is fixed: without it Node would accept a truncated tag (DEP0182).
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv!, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
    } catch {
      throw new UnsealError('The key ring cannot be opened with this KEYRING_SECRET.');
    }
  }
}
