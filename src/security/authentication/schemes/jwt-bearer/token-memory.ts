import type { BearerTokenValidation } from '../bearer/handler.ts';

/** Characters of a token's end (its signature, as good as random) that key the memory; a hit is confirmed on the whole token. */
const KEY_LENGTH = 32;

type Verified = Extract<BearerTokenValidation, { valid: true }>;

interface Remembered {
  readonly token: string;
  readonly validation: Verified;
  /** Epoch ms after which the token must be verified again. */
  readonly until: number;
}

/**
 * Verified tokens, so a client repeating its token is not verified again each time. Bounded
 * (oldest out first), and an entry counts only until its token expires (plus the allowed skew)
 * or its key set is due for a fetch again, whichever is first: a key the issuer withdrew stops
 * vouching for remembered tokens no later than it would for new ones.
 */
export class TokenMemory {
  private readonly entries = new Map<string, Remembered>();

  constructor(private readonly capacity: number) {}

  /** The verdict on a remembered token at `now`, or undefined when it must be verified. */
  recall(token: string, now: number): Verified | undefined {
    if (this.capacity === 0) return undefined;
    const key = keyOf(token);
    const remembered = this.entries.get(key);
    if (remembered === undefined || remembered.token !== token) return undefined;
    if (now < remembered.until) return remembered.validation;
    this.entries.delete(key);
    return undefined;
  }

  remember(token: string, validation: Verified, until: number): void {
    if (this.capacity === 0) return;
    const key = keyOf(token);
    if (!this.entries.has(key) && this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { token, validation, until });
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(token: string): string {
  return token.length > KEY_LENGTH ? token.slice(-KEY_LENGTH) : token;
}
