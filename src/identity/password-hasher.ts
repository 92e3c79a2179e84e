import { availableParallelism } from 'node:os';
import { type Algorithm, hash, verify } from '@node-rs/argon2';
import { Slots } from '../platform/slots.ts';

/** `Algorithm.Argon2id`: the enum is a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm;

/**
 * Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane). @node-rs/argon2 runs on libuv's
 * thread pool, off the event loop. Passwords are NFKC-normalised before hashing, so the same
 * password typed on another keyboard still matches (NIST SP 800-63B).
 */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashes run at most one per usable core at a time; the others queue. More in flight would not
 * finish sooner (each pins a core for ~12 ms), would hold 19 MiB each, and would leave the event
 * loop competing with every hashing thread for its core: under a sign-in flood, requests that need
 * no hash would wait behind them (docs/decisions/0019-hashing-slots.md).
 */
export class PasswordHasher {
  /** Verified against for unknown users, so that a guesser cannot tell them apart by time. */
  private dummyHash: Promise<string> | undefined;
  private readonly slots: Slots;

  constructor(concurrency = availableParallelism()) {
    this.slots = new Slots(concurrency);
  }

  hash(password: string): Promise<string> {
    return this.slots.run(() => hash(password.normalize('NFKC'), OPTIONS));
  }

  async verify(storedHash: string | null, password: string): Promise<boolean> {
    if (storedHash === null || !storedHash.startsWith('$argon2')) {
      await this.verifyDummy(password);
      return false;
    }
    try {
      return await this.slots.run(() => verify(storedHash, password.normalize('NFKC')));
    } catch {
      return false;
    }
  }

  /** Spends the time a real verification would, and always fails. */
  async verifyDummy(password: string): Promise<void> {
    this.dummyHash ??= this.hash('gatehouse dummy password');
    const dummy = await this.dummyHash;
    await this.slots.run(() => verify(dummy, password.normalize('NFKC'))).catch(() => false);
  }
}
