import { randomBytes, randomFillSync } from 'node:crypto';

/** Randomness from the CSPRNG, injected so that tests can see what was drawn. */
export interface Random {
  bytes(length: number): Buffer;
}

/** Bytes drawn from the CSPRNG at once. */
const POOL_BYTES = 4096;
/** Larger draws skip the pool: they are rare (keys) and would drain it. */
const LARGEST_POOLED_DRAW = 256;

/**
 * The CSPRNG, drawn from 4 KiB at a time and handed out once, byte by byte. Each `randomBytes`
 * call is a native job of its own, and under sign-in load the event loop runs on caches a hash
 * has just evicted: two draws (session token and cookie IV) cost ~5 % of a sign-in's event-loop
 * time (decision 0029). Node's own `randomUUID` keeps such a cache. Every caller gets a copy,
 * never a view onto the pool, and the bytes handed out are wiped from it.
 */
export class PooledRandom implements Random {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private offset = POOL_BYTES;

  bytes(length: number): Buffer {
    if (length > LARGEST_POOLED_DRAW) return randomBytes(length);
    if (this.offset + length > POOL_BYTES) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const drawn = Buffer.alloc(length);
    this.pool.copy(drawn, 0, this.offset, this.offset + length);
    this.pool.fill(0, this.offset, this.offset + length);
    this.offset += length;
    return drawn;
  }
}

export const cryptoRandom: Random = new PooledRandom();
