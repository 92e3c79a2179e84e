import { type Argon2Options, argon2Workers } from './argon2-workers.ts';
import { isAspNetPasswordHash, verifyAspNetPasswordHash } from './aspnet-password-hash.ts';

/** @node-rs/argon2's `Algorithm.Argon2id` (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2;

/**
 * Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), on low-priority worker threads off
 * the event loop (argon2-workers.ts). Passwords are NFKC-normalised before hashing, so the same
 * password typed on another keyboard still matches (NIST SP 800-63B).
 */
const OPTIONS: Argon2Options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
/** How a hash made with OPTIONS begins; any other hash is replaced at the next successful sign-in. */
const CURRENT_PREFIX = `$argon2id$v=19$m=${OPTIONS.memoryCost},t=${OPTIONS.timeCost},p=${OPTIONS.parallelism}$`;

export class PasswordHasher {
  /** Verified against for unknown users, so that a guesser cannot tell them apart by time. */
  private dummyHash: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return argon2Workers.hash(password.normalize('NFKC'), OPTIONS);
  }

  async verify(storedHash: string | null, password: string): Promise<boolean> {
    // Imported from ASP.NET Core Identity: PBKDF2 on libuv's pool, the password as typed (ASP.NET does not normalise).
    if (storedHash !== null && isAspNetPasswordHash(storedHash)) return verifyAspNetPasswordHash(storedHash, password);
    // No hash, or one no check accepts: malformed, or an ASP.NET hash over the caps (written before
    // they existed, or by hand), whose own PBKDF2 is never run. It takes a real check's time all
    // the same, so that such an account looks like any other to a guesser.
    if (storedHash === null || !storedHash.startsWith('$argon2')) {
      await this.verifyDummy(password);
      return false;
    }
    try {
      return await argon2Workers.verify(storedHash, password.normalize('NFKC'));
    } catch {
      return false;
    }
  }

  /** Whether a hash that just verified should be replaced by one with the current algorithm and parameters. */
  needsRehash(storedHash: string): boolean {
    return !storedHash.startsWith(CURRENT_PREFIX);
  }

  /** Spends the time a real verification would, and always fails. */
  async verifyDummy(password: string): Promise<void> {
    this.dummyHash ??= this.hash('gatehouse dummy password');
    const dummy = await this.dummyHash;
    await argon2Workers.verify(dummy, password.normalize('NFKC')).catch(() => false);
  }
}
