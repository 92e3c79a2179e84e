import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Longer cookies are refused unread; a sealed session token is about 90 characters. */
const MAX_COOKIE_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Encrypts and authenticates cookie values (ASP.NET's data protector for cookies): AES-256-GCM
 * under a key derived by HKDF from the key ring's cookie secret, with the purpose as associated
 * data, so a value sealed for one cookie never opens as another's. Anything that does not open —
 * tampered, truncated, padded, re-encoded, or sealed under another secret — is simply null.
 *
 * Not the key ring's `Sealer`: that one also reads unencrypted `plain.` values (a ring stored
 * without KEYRING_SECRET), which a forged cookie must never be.
 */
export class CookieProtector {
  private readonly key: Buffer;
  private readonly purpose: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'gatehouse', `cookie protector v1\0${purpose}`, 32));
    this.purpose = Buffer.from(purpose, 'utf8');
  }

  /** base64url(iv ‖ ciphertext ‖ tag). */
  protect(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(this.purpose);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The plaintext, or null for any value this protector did not seal as it is. */
  unprotect(value: string): string | null {
    if (value.length > MAX_COOKIE_LENGTH || !BASE64URL.test(value)) return null;
    const bytes = Buffer.from(value, 'base64url');
    // Only the canonical encoding: other spellings of the same bytes (unused trailing bits) are refused.
    if (bytes.toString('base64url') !== value || bytes.length <= IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(this.purpose);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
