import { randomBytes } from 'node:crypto';

/** Randomness from the CSPRNG, injected so that tests can see what was drawn. */
export interface Random {
  bytes(length: number): Buffer;
}

export const cryptoRandom: Random = { bytes: (length) => randomBytes(length) };
