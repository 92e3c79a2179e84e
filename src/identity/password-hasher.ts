import { type Argon2Parameters, argon2ParametersOf, DEFAULT_ARGON2, isWeakerThan } from './argon2-parameters.ts';
import { type Argon2Options, type Argon2Workers, sharedArgon2Workers } from './argon2-workers.ts';
import { isAspNetPasswordHash, verifyAspNetPasswordHash } from './aspnet-password-hash.ts';
import { HashingBusyError } from './hashing-busy.ts';

/** @node-rs/argon2's `Algorithm.Argon2id` (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2;

export interface PasswordHasherOptions {
  /** The cost of new hashes; a stored hash weaker in any of them is replaced at the next sign-in. @default OWASP's 19 MiB, 2 passes, 1 lane */
  readonly parameters?: Argon2Parameters;
  /** The hashing threads and their queue. @default the process's pool for the default settings */
  readonly workers?: Argon2Workers;
}

/**
 * Argon2id with OWASP's parameters by default (19 MiB, 2 passes, 1 lane; `ARGON2_*` settings raise
 * them or choose another row of OWASP's table), on low-priority worker threads off the event loop
 * (argon2-workers.ts). Passwords are NFKC-normalised before hashing, so the same password typed
 * on another keyboard still matches (NIST SP 800-63B). A full hashing queue refuses with
 * `HashingBusyError`, which every method lets through: it is neither a right nor a wrong password.
 * Every method takes the caller's `client` (an opaque key, e.g. from the client's address): the
 * queue serves clients in turns and refuses the one holding the most first (argon2-workers.ts).
 */
export class PasswordHasher {
  readonly parameters: Argon2Parameters;
  readonly workers: Argon2Workers;
  private readonly options: Argon2Options;
  /** Verified against for unknown users, so that a guesser cannot tell them apart by time. */
  private dummyHash: Promise<string> | undefined;

  constructor({ parameters = DEFAULT_ARGON2, workers = sharedArgon2Workers() }: PasswordHasherOptions = {}) {
    this.parameters = parameters;
    this.workers = workers;
    this.options = { algorithm: ARGON2ID, memoryCost: parameters.memoryKib, timeCost: parameters.iterations, parallelism: parameters.parallelism };
  }

  hash(password: string, client?: string): Promise<string> {
    return this.workers.hash(password.normalize('NFKC'), this.options, client);
  }

  async verify(storedHash: string | null, password: string, client?: string): Promise<boolean> {
    // Imported from ASP.NET Core Identity: PBKDF2 on libuv's pool, the password as typed (ASP.NET does not normalise).
    if (storedHash !== null && isAspNetPasswordHash(storedHash)) return verifyAspNetPasswordHash(storedHash, password);
    // No hash, or one no check accepts: malformed, or an ASP.NET hash over the caps (written before
    // they existed, or by hand), whose own PBKDF2 is never run. It takes a real check's time all
    // the same, so that such an account looks like any other to a guesser.
    if (storedHash === null || !storedHash.startsWith('$argon2')) {
      await this.verifyDummy(password, client);
      return false;
    }
    try {
      return await this.workers.verify(storedHash, password.normalize('NFKC'), client);
    } catch (error) {
      if (error instanceof HashingBusyError) throw error;
      return false;
    }
  }

  /** Whether a hash that just verified should be replaced: another algorithm, or weaker Argon2id parameters than today's. */
  needsRehash(storedHash: string): boolean {
    const stored = argon2ParametersOf(storedHash);
    return stored === undefined || isWeakerThan(stored, this.parameters);
  }

  /** Spends the time a real verification would, and always fails. */
  async verifyDummy(password: string, client?: string): Promise<void> {
    const dummy = await this.dummy(client);
    await this.workers.verify(dummy, password.normalize('NFKC'), client).catch((error: unknown) => {
      if (error instanceof HashingBusyError) throw error;
      return false;
    });
  }

  /** Made once, as the first caller's task; a refused first attempt leaves it to the next call. */
  private dummy(client: string | undefined): Promise<string> {
    this.dummyHash ??= this.hash('gatehouse dummy password', client).catch((error: unknown) => {
      this.dummyHash = undefined;
      throw error;
    });
    return this.dummyHash;
  }
}
