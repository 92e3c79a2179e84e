import { randomBytes } from 'node:crypto';

/** Randomness from the CSPRNG, injected so that tests can see what was drawn. */
export interface Random {
  bytes(length: number): Buffer;
}

/**
 * Node's CSPRNG, one `randomBytes` call per draw. No pool: a pool of drawn-ahead bytes measured no
 * gain and kept future secrets in the heap (decision 0029, amended).
 */
export const cryptoRandom: Random = {
  bytes: (length) => randomBytes(length),
};
