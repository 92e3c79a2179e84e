import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { aspNetV2Hash, aspNetV3Hash, aspNetV3HashShape } from '../../test/helpers/aspnet-hashes.ts';
import { PasswordHasher } from './password-hasher.ts';

const PASSWORD = 'an old password from ASP.NET';
const pbkdf2Async = promisify(pbkdf2);

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

describe('PasswordHasher under guesses at costly imported hashes', () => {
  it('leaves libuv’s pool free for other work while guesses at costly imported hashes are in flight', async () => {
    const hasher = new PasswordHasher();
    // At the iteration cap; four of them are as many as libuv's pool has threads, which Argon2id's checks share.
    const costly = aspNetV3HashShape('sha256', 1_000_000, 16, 32);
    const finished: string[] = [];
    const guesses = Array.from({ length: 4 }, (_, guess) => hasher.verify(costly, 'a wrong guess').then(() => finished.push(`guess ${guess}`)));
    // A task of microseconds on the same pool: it waits for none of the guesses, since they hold one thread in turn.
    await pbkdf2Async('other work', 'salt', 1, 32, 'sha256').then(() => finished.push('other work'));
    expect(finished).toEqual(['other work']);
    await Promise.all(guesses);
    expect(finished).toEqual(['other work', ...Array.from({ length: 4 }, (_, guess) => `guess ${guess}`)]);
  });
});
