import { describe, expect, it } from 'vitest';
import { Sealer, UnsealError } from './sealer.ts';

const SECRET = 'k3yr1ng-s3cret-of-at-least-32-bytes!!';
const OTHER_SECRET = 'another-secret-of-at-least-32-bytes!!';
const PLAINTEXT = '{"kty":"OKP","crv":"Ed25519","d":"private-key-material"}';

const ENCRYPTED_PREFIX = 'enc.v1.';

/** The three base64url parts of an encrypted value: iv, ciphertext, tag. */
function parts(sealed: string): [string, string, string] {
  expect(sealed.startsWith(ENCRYPTED_PREFIX)).toBe(true);
  const split = sealed.slice(ENCRYPTED_PREFIX.length).split('.');
  expect(split).toHaveLength(3);
  return split as [string, string, string];
}

function join([iv, body, tag]: readonly string[]): string {
  return `${ENCRYPTED_PREFIX}${iv}.${body}.${tag}`;
}

function flipFirstByte(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  return bytes.toString('base64url');
}

function unsealError(sealer: Sealer, sealed: string): UnsealError {
  try {
    sealer.unseal(sealed);
  } catch (error) {
    if (error instanceof UnsealError) return error;
    throw error;
  }
  throw new Error('unseal accepted the value');
}

describe('Sealer with a secret', () => {
  const sealer = new Sealer(SECRET);

  it('says it encrypts', () => {
    expect(sealer.encrypts).toBe(true);
  });

  it('opens what it sealed', () => {
    expect(sealer.unseal(sealer.seal(PLAINTEXT))).toBe(PLAINTEXT);
  });

  it('opens what it sealed for non-ASCII text and the empty string', () => {
    expect(sealer.unseal(sealer.seal('clé privée ✓ 🔑'))).toBe('clé privée ✓ 🔑');
    expect(sealer.unseal(sealer.seal(''))).toBe('');
  });

  it('opens what another sealer with the same secret sealed (instances sharing a database)', () => {
    expect(new Sealer(SECRET).unseal(sealer.seal(PLAINTEXT))).toBe(PLAINTEXT);
  });

  it('gives a different sealed value each time for the same plaintext', () => {
    const first = sealer.seal(PLAINTEXT);
    const second = sealer.seal(PLAINTEXT);
    expect(first).not.toBe(second);
    expect(parts(first)[0]).not.toBe(parts(second)[0]);
  });

  it('does not reveal the plaintext, raw or base64url-encoded', () => {
    const sealed = sealer.seal(PLAINTEXT);
    expect(sealed).not.toContain('private-key-material');
    expect(sealed).not.toContain(Buffer.from(PLAINTEXT).toString('base64url').slice(0, 16));
  });

  it.each([
    ['the iv', 0],
    ['the ciphertext', 1],
    ['the authentication tag', 2],
  ])('refuses a value with a byte of %s changed', (_, index) => {
    const tampered = [...parts(sealer.seal(PLAINTEXT))];
    tampered[index] = flipFirstByte(tampered[index]!);
    expect(unsealError(sealer, join(tampered)).message).toBe('The key ring cannot be opened with this KEYRING_SECRET.');
  });

  it('refuses a value with a part missing', () => {
    const [iv, body] = parts(sealer.seal(PLAINTEXT));
    expect(unsealError(sealer, `${ENCRYPTED_PREFIX}${iv}.${body}`).message).toMatch(/KEYRING_SECRET/);
  });

  it('refuses a value with an empty authentication tag', () => {
    const [iv, body] = parts(sealer.seal(PLAINTEXT));
    expect(unsealError(sealer, `${ENCRYPTED_PREFIX}${iv}.${body}.`).message).toMatch(/KEYRING_SECRET/);
  });

  // AES-GCM tags must be checked at full length: Node accepts a tag cut to 4 bytes unless
  // `authTagLength` is given, which lets a forger succeed with probability 2^-32 per try.
  it('refuses a value whose authentication tag was truncated', () => {
    const [iv, body, tag] = parts(sealer.seal(PLAINTEXT));
    const truncated = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(unsealError(sealer, join([iv, body, truncated]))).toBeInstanceOf(UnsealError);
  });

  it('refuses a value sealed with another secret, with a message naming KEYRING_SECRET', () => {
    const error = unsealError(new Sealer(OTHER_SECRET), sealer.seal(PLAINTEXT));
    expect(error.name).toBe('UnsealError');
    expect(error.message).toBe('The key ring cannot be opened with this KEYRING_SECRET.');
  });

  it('refuses a value in an unknown format', () => {
    expect(unsealError(sealer, PLAINTEXT).message).toBe('The key ring holds a value in an unknown format.');
    expect(unsealError(sealer, 'enc.v2.abc.def.ghi').message).toBe('The key ring holds a value in an unknown format.');
  });

  it('opens a value that was stored plain, before a secret was set', () => {
    expect(sealer.unseal(new Sealer(undefined).seal(PLAINTEXT))).toBe(PLAINTEXT);
  });
});

describe('Sealer without a secret', () => {
  const sealer = new Sealer(undefined);

  it('says it does not encrypt', () => {
    expect(sealer.encrypts).toBe(false);
  });

  it('opens what it stored', () => {
    expect(sealer.unseal(sealer.seal(PLAINTEXT))).toBe(PLAINTEXT);
    expect(sealer.unseal(sealer.seal('clé ✓'))).toBe('clé ✓');
  });

  it('marks what it stores as plain, so that it is never mistaken for an encrypted value', () => {
    const stored = sealer.seal(PLAINTEXT);
    expect(stored.startsWith('plain.v1.')).toBe(true);
    expect(stored.startsWith(ENCRYPTED_PREFIX)).toBe(false);
  });

  it('refuses an encrypted value, telling the operator to set KEYRING_SECRET', () => {
    const error = unsealError(sealer, new Sealer(SECRET).seal(PLAINTEXT));
    expect(error.message).toBe('The key ring is encrypted: set KEYRING_SECRET to the secret it was created with.');
  });
});
