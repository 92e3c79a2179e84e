import { describe, expect, it } from 'vitest';
import { aspNetV2Hash, aspNetV3Hash } from '../../test/helpers/aspnet-hashes.ts';
import { isAspNetPasswordHash, verifyAspNetPasswordHash } from './aspnet-password-hash.ts';

const PASSWORD = 'Pässword with ünïcode and spaces';

describe('ASP.NET Core Identity password hashes', () => {
  it('verifies V2 hashes (PBKDF2-HMAC-SHA1, 1,000 iterations) and refuses other passwords', async () => {
    const stored = aspNetV2Hash(PASSWORD);
    expect(isAspNetPasswordHash(stored)).toBe(true);
    expect(await verifyAspNetPasswordHash(stored, PASSWORD)).toBe(true);
    expect(await verifyAspNetPasswordHash(stored, `${PASSWORD} `)).toBe(false);
  });

  it.each([
    ['sha1', 10_000],
    ['sha256', 10_000],
    ['sha512', 100_000],
    ['sha512', 1],
  ] as const)('verifies V3 hashes with HMAC-%s and %i embedded iterations', async (prf, iterations) => {
    const stored = aspNetV3Hash(PASSWORD, prf, iterations);
    expect(await verifyAspNetPasswordHash(stored, PASSWORD)).toBe(true);
    expect(await verifyAspNetPasswordHash(stored, 'wrong')).toBe(false);
  });

  it('reads the salt length from the hash', async () => {
    expect(await verifyAspNetPasswordHash(aspNetV3Hash(PASSWORD, 'sha256', 1000, 32, 64), PASSWORD)).toBe(true);
  });

  it('refuses tampered, truncated, unknown and absurd hashes without throwing', async () => {
    const stored = Buffer.from(aspNetV3Hash(PASSWORD, 'sha256', 1000), 'base64');
    const variants: Buffer[] = [
      Buffer.concat([stored.subarray(0, -1), Buffer.from([stored.at(-1)! ^ 1])]), // subkey bit flipped
      stored.subarray(0, 40), // truncated
      Buffer.concat([Buffer.from([2]), stored.subarray(1)]), // unknown format marker
      (() => { const b = Buffer.from(stored); b.writeUInt32BE(3, 1); return b; })(), // unknown PRF
      (() => { const b = Buffer.from(stored); b.writeUInt32BE(4_000_000_000, 5); return b; })(), // absurd iterations
      (() => { const b = Buffer.from(stored); b.writeUInt32BE(500, 9); return b; })(), // salt longer than the hash
    ];
    for (const variant of variants) {
      expect(await verifyAspNetPasswordHash(variant.toString('base64'), PASSWORD)).toBe(false);
    }
    for (const text of ['', 'not base64 at all!', '$argon2id$v=19$m=19456,t=2,p=1$abc$def', 'AQAAAA==']) {
      expect(isAspNetPasswordHash(text)).toBe(false);
      expect(await verifyAspNetPasswordHash(text, PASSWORD)).toBe(false);
    }
  });
});
