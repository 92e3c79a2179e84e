import type { Clock } from '../platform/clock.ts';
import type { MaybePromise } from '../security/maybe-async.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import type { BearerTokenValidator } from '../security/authentication/index.ts';
import { type AccessTokens, type AccessTokenValidation, CLOCK_SKEW_SECONDS, type VerifiedAccessToken } from './access-token.ts';
import type { KeyRing } from './key-ring.ts';

/** How many verified tokens an instance remembers. @default 10_000 */
const DEFAULT_CAPACITY = 10_000;

/**
 * The Bearer scheme's validator: signature and claims checked once per token (the ES256 check is
 * the dearest step of a request), then remembered, keyed by the whole token. Every use, cached or
 * not, is checked against expiry, the signing key still being in the ring, and the revocation
 * list, so the cache never outlives a revocation.
 */
export class AccessTokenValidator implements BearerTokenValidator {
  private readonly cache = new Map<string, VerifiedAccessToken>();

  constructor(
    private readonly tokens: AccessTokens,
    private readonly keyRing: KeyRing,
    private readonly revocations: RevocationList,
    private readonly clock: Clock,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  /** At once for a remembered token; after the signature check otherwise. */
  validate(token: string): MaybePromise<AccessTokenValidation> {
    const cached = this.cache.get(token);
    if (cached === undefined) return this.verifyAndRemember(token);
    if (this.clock.now() >= cached.expiresAt + CLOCK_SKEW_SECONDS * 1000) {
      this.cache.delete(token);
      return EXPIRED;
    }
    return this.stillCounts(token, cached);
  }

  private async verifyAndRemember(token: string): Promise<AccessTokenValidation> {
    const result = await this.tokens.verify(token);
    if (!result.valid) return result;
    this.remember(token, result);
    return this.stillCounts(token, result);
  }

  /** What can change after verification: the key's place in the ring, and revocations. */
  private stillCounts(token: string, verified: VerifiedAccessToken): AccessTokenValidation {
    if (this.keyRing.verificationKey(verified.kid) === undefined) {
      this.cache.delete(token);
      return UNKNOWN_KEY;
    }
    if (this.revocations.refusesAccessToken(verified.userId, verified.stamp)) return REVOKED;
    return verified;
  }

  /** Oldest first out when full: a Map iterates in insertion order. */
  private remember(token: string, verified: VerifiedAccessToken): void {
    if (this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(token, verified);
  }
}

const EXPIRED: AccessTokenValidation = Object.freeze({ valid: false, reason: 'The token expired.' });
const UNKNOWN_KEY: AccessTokenValidation = Object.freeze({ valid: false, reason: 'The token signing key is unknown.' });
const REVOKED: AccessTokenValidation = Object.freeze({ valid: false, reason: 'The token was revoked.' });
