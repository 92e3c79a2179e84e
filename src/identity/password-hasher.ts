import { type Algorithm, hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id`: the enum is a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm;

/**
 * Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane). @node-rs/argon2 runs on libuv's
 * thread pool, off the event loop. Passwords are NFKC-normalised before hashing, so the same
 * password typed on another keyboard still matches (NIST SP 800-63B).
 */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export class PasswordHasher {
  /** Verified against for unknown users, so that a guesser cannot tell them apart by time. */
  private dummyHash: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return hash(password.normalize('NFKC'), OPTIONS);
  }

  async verify(storedHash: string | null, password: string): Promise<boolean> {
    if (storedHash === null || !storedHash.startsWith('$argon2')) {
      await this.verifyDummy(password);
      return false;
    }
    try {
      return await verify(storedHash, password.normalize('NFKC'));
    } catch {
      return false;
    }
  }

  /** Spends the time a real verification would, and always fails. */
  async verifyDummy(password: string): Promise<void> {
    this.dummyHash ??= hash('gatehouse dummy password', OPTIONS);
    await verify(await this.dummyHash, password.normalize('NFKC')).catch(() => false);
  }
}
