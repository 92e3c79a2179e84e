import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { aspNetV2Hash, aspNetV3Hash, aspNetV3HashShape } from '../../test/helpers/aspnet-hashes.ts';
import { Argon2Workers } from './argon2-workers.ts';
import { HashingBusyError } from './hashing-busy.ts';
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

describe('PasswordHasher parameters', () => {
  it('hashes with its parameters and asks to replace a hash weaker than them in any one', async () => {
    const hasher = new PasswordHasher({ parameters: { memoryKib: 12_288, iterations: 3, parallelism: 1 } });
    const stored = await hasher.hash(PASSWORD);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=12288,t=3,p=1\$/);
    expect(await hasher.verify(stored, PASSWORD)).toBe(true);
    expect(hasher.needsRehash(stored)).toBe(false);
    expect(hasher.needsRehash('$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(hasher.needsRehash('$argon2id$v=19$m=9216,t=4,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    // At least as strong in each: kept, so that lowering the settings rewrites nothing.
    expect(hasher.needsRehash('$argon2id$v=19$m=65536,t=3,p=2$c2FsdHNhbHQ$aGFzaA')).toBe(false);
    expect(hasher.needsRehash('$argon2i$v=19$m=65536,t=3,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(hasher.needsRehash(aspNetV2Hash(PASSWORD))).toBe(true);
  });
});

describe('PasswordHasher with a full hashing queue', () => {
  /** A pool of one thread holding one task and no room to wait: anything submitted with it is refused. */
  function fullPool(): { workers: Argon2Workers; hold: () => Promise<string> } {
    const workers = new Argon2Workers({ threads: 1, tasksPerThread: 1, queueMax: 0 });
    onTestFinished(() => workers.close());
    return { workers, hold: () => workers.hash('held', { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 }) };
  }

  it('lets the refusal through a check instead of calling the password wrong', async () => {
    const { workers, hold } = fullPool();
    const hasher = new PasswordHasher({ workers });
    const stored = await hasher.hash(PASSWORD);
    const held = hold();
    await expect(hasher.verify(stored, PASSWORD)).rejects.toBeInstanceOf(HashingBusyError);
    await expect(hasher.verify(null, PASSWORD)).rejects.toBeInstanceOf(HashingBusyError);
    await held;
    expect(await hasher.verify(stored, PASSWORD)).toBe(true);
  });

  it('makes the dummy hash again after its first attempt was refused', async () => {
    const { workers, hold } = fullPool();
    const hasher = new PasswordHasher({ workers });
    const held = hold();
    await expect(hasher.verifyDummy(PASSWORD)).rejects.toBeInstanceOf(HashingBusyError);
    await held;
    await expect(hasher.verifyDummy(PASSWORD)).resolves.toBeUndefined();
  });
});
