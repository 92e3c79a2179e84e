import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aspNetV2Hash, aspNetV2HashOfLength, aspNetV3Hash, aspNetV3HashShape } from '../../test/helpers/aspnet-hashes.ts';
import { aspNetPasswordHashProblem, isAspNetPasswordHash, verifyAspNetPasswordHash } from './aspnet-password-hash.ts';

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

  describe('the caps on what a hash may cost (at most 1,000,000 iterations and a 64-byte subkey)', () => {
    it('accepts 1,000,000 iterations and refuses 1,000,001, saying how many and how many are accepted', () => {
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha512', 1_000_000))).toBeNull();
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha512', 1_000_001))).toBe('has 1000001 iterations; at most 1000000 are accepted');
      expect(isAspNetPasswordHash(aspNetV3HashShape('sha1', 1_000_001))).toBe(false);
    });

    it('accepts a 64-byte subkey and refuses 65 bytes, whatever the PRF', () => {
      for (const prf of ['sha1', 'sha256', 'sha512'] as const) {
        expect(aspNetPasswordHashProblem(aspNetV3HashShape(prf, 10_000, 16, 64)), prf).toBeNull();
        expect(aspNetPasswordHashProblem(aspNetV3HashShape(prf, 10_000, 16, 65)), prf).toMatch(/^has a 65-byte subkey .*; at most 64 bytes are accepted$/);
      }
    });

    it('refuses the old worst case, 10,000,000 iterations with a 256-byte subkey, naming the iterations', () => {
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha1', 10_000_000, 16, 256))).toBe('has 10000000 iterations; at most 1000000 are accepted');
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha1', 100_000, 16, 256))).toBe(
        'has a 256-byte subkey (13 PBKDF2 blocks of HMAC-SHA1); at most 64 bytes are accepted',
      );
    });

    it('keeps the lower bounds and the salt bounds: 0 iterations, a 15-byte subkey, a 7- or 257-byte salt are refused', () => {
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 0))).toBe('has 0 iterations; at least 1 is needed');
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 1, 16, 16))).toBeNull();
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 1, 16, 15))).toBe('has a 15-byte subkey; at least 16 bytes are needed');
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 1000, 8))).toBeNull();
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 1000, 7))).toBe('has a 7-byte salt; 8 to 256 bytes are accepted');
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 1000, 256, 64))).toBeNull();
      expect(aspNetPasswordHashProblem(aspNetV3HashShape('sha256', 1000, 257))).toBe('has a 257-byte salt; 8 to 256 bytes are accepted');
    });

    it('names an unknown PRF, and a V2 hash of any length but 49 bytes', () => {
      const unknownPrf = Buffer.from(aspNetV3HashShape('sha256', 1000), 'base64');
      unknownPrf.writeUInt32BE(7, 1);
      expect(aspNetPasswordHashProblem(unknownPrf.toString('base64'))).toMatch(/^names PRF 7, which ASP.NET does not have/);
      expect(aspNetPasswordHashProblem(aspNetV2Hash(PASSWORD))).toBeNull();
      for (const length of [48, 50, 1 + 16 + 64]) {
        expect(aspNetPasswordHashProblem(aspNetV2HashOfLength(length))).toBe(
          `is a V2 hash of ${length} bytes; V2 is exactly 49 (0x00, a 16-byte salt, a 32-byte subkey)`,
        );
      }
    });

    it('never echoes the hash in what it says is wrong', () => {
      const hostile = aspNetV3HashShape('sha1', 10_000_000, 16, 256);
      const said = [hostile, hostile.slice(0, 20), `${hostile}!`, 'x'.repeat(10_000)].map((text) => aspNetPasswordHashProblem(text) ?? '');
      for (const line of said) {
        expect(line).not.toBe('');
        expect(line).not.toContain(hostile.slice(0, 12));
        expect(line).not.toContain('xxxx');
      }
    });

    it('answers "does not match" for the right password when the hash is over a cap: its PBKDF2 is never run', async () => {
      // Both are right for PASSWORD; computed, they would match.
      const longSubkey = aspNetV3Hash(PASSWORD, 'sha256', 1000, 16, 65);
      expect(await verifyAspNetPasswordHash(longSubkey, PASSWORD)).toBe(false);
      const manyIterations = v3HashByNode('sha1', 1_000_001, 16);
      expect(await verifyAspNetPasswordHash(manyIterations, PASSWORD)).toBe(false);
      // The hostile row of before: if it were computed, it would take the test past its timeout.
      expect(await verifyAspNetPasswordHash(aspNetV3HashShape('sha1', 10_000_000, 16, 256), PASSWORD)).toBe(false);
    });

    it('verifies a hash at the caps (1,000,000 iterations of HMAC-SHA512, a 64-byte subkey)', async () => {
      expect(await verifyAspNetPasswordHash(v3HashByNode('sha512', 1_000_000, 64), PASSWORD)).toBe(true);
    });
  });
});

/** A right V3 hash of PASSWORD by node:crypto, which is quicker than the helper's at a million iterations. */
function v3HashByNode(digest: 'sha1' | 'sha512', iterations: number, subkeyBytes: number): string {
  const salt = Buffer.alloc(16, 3);
  const header = Buffer.from(aspNetV3HashShape(digest, iterations, 16, 0), 'base64').subarray(0, 13);
  return Buffer.concat([header, salt, pbkdf2Sync(PASSWORD, salt, iterations, subkeyBytes, digest)]).toString('base64');
}
