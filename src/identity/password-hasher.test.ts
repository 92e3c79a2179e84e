import { describe, expect, it } from 'vitest';
import { aspNetV2Hash, aspNetV3Hash, aspNetV3HashShape } from '../../test/helpers/aspnet-hashes.ts';
import { PasswordHasher } from './password-hasher.ts';

const PASSWORD = 'an old password from ASP.NET';

/** Counts the dummy verifications it spends, and spends them as the real one does. */
class CountingHasher extends PasswordHasher {
  dummies = 0;

  override async verifyDummy(password: string): Promise<void> {
    this.dummies += 1;
    await super.verifyDummy(password);
  }
}

describe('PasswordHasher with stored hashes no check accepts', () => {
  it('spends a dummy Argon2id check, not the PBKDF2, on an ASP.NET hash over the caps, like an unknown user', async () => {
    const hasher = new CountingHasher();
    // Right for PASSWORD: only a computed PBKDF2 could match it.
    const overSubkeyCap = aspNetV3Hash(PASSWORD, 'sha256', 1000, 16, 65);
    expect(await hasher.verify(overSubkeyCap, PASSWORD)).toBe(false);
    expect(await hasher.verify(aspNetV3HashShape('sha1', 10_000_000, 16, 256), PASSWORD)).toBe(false);
    expect(hasher.dummies).toBe(2);
  });

  it('spends none on an accepted ASP.NET hash, which is computed', async () => {
    const hasher = new CountingHasher();
    expect(await hasher.verify(aspNetV2Hash(PASSWORD), PASSWORD)).toBe(true);
    expect(await hasher.verify(aspNetV3Hash(PASSWORD, 'sha512', 1000, 16, 64), 'not it')).toBe(false);
    expect(hasher.dummies).toBe(0);
  });
});
