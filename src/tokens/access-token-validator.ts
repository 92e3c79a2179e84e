import type { Clock } from '../platform/clock.ts';
import type { MaybePromise } from '../security/maybe-async.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import type { BearerTokenValidator } from '../security/authentication/index.ts';
import { type AccessTokens, type AccessTokenValidation, CLOCK_SKEW_SECONDS, type VerifiedAccessToken } from './access-token.ts';
import type { KeyRing } from './key-ring.ts';

/** How many verified tokens an instance remembers. @default 10_000 */
const DEFAULT_CAPACITY = 10_000;

/**
 * Characters of a token's end that key the cache. The end of a compact JWS is its signature, as
 * good as random, so the key tells remembered tokens apart; hashing 32 characters instead of a
 * whole token (600 and more) is most of what a look-up costs. A hit is confirmed on the whole token.
 */
const KEY_LENGTH = 32;

interface Remembered {
  readonly token: string;
  readonly verified: VerifiedAccessToken;
}

/**
 * The Bearer scheme's validator: signature and claims checked once per token (the ES256 check is
 * the dearest step of a request), then remembered. Every use, remembered or not, is checked
 * against expiry, the signing key still being in the ring, and the revocation list, so the cache
 * never outlives a revocation.
 */
export class AccessTokenValidator implements BearerTokenValidator {
  private readonly cache = new Map<string, Remembered>();

  constructor(
    private readonly tokens: AccessTokens,
    private readonly keyRing: KeyRing,
    private readonly revocations: RevocationList,
    private readonly clock: Clock,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  /** At once for a remembered token; after the signature check otherwise. */
  validate(token: string): MaybePromise<AccessTokenValidation> {
    return this.recall(token) ?? this.verifyAndRemember(token);
  }

  /** The verdict on a remembered token, or undefined for one never verified (or forgotten). */
  recall(token: string): AccessTokenValidation | undefined {
    const key = cacheKey(token);
    const remembered = this.cache.get(key);
    if (remembered === undefined || remembered.token !== token) return undefined;
    const { verified } = remembered;
    if (this.clock.now() >= verified.expiresAt + CLOCK_SKEW_SECONDS * 1000) {
      this.cache.delete(key);
      return EXPIRED;
    }
    return this.stillCounts(key, verified);
  }

  private async verifyAndRemember(token: string): Promise<AccessTokenValidation> {
    const result = await this.tokens.verify(token);
    if (!result.valid) return result;
    const key = cacheKey(token);
    this.remember(key, { token, verified: result });
    return this.stillCounts(key, result);
  }

  /**
   * What can change after verification: the key's place in the ring, and revocations. Throws
   * `RevocationsStaleError` for a token that would be accepted while the revocation feed is stale.
   */
  private stillCounts(key: string, verified: VerifiedAccessToken): AccessTokenValidation {
    if (this.keyRing.verificationKey(verified.kid) === undefined) {
      this.cache.delete(key);
      return UNKNOWN_KEY;
    }
    if (this.revocations.refusesAccessToken(verified.userId, verified.stamp)) return REVOKED;
    // A token of an ended family ("sign out" of that session): one look in a small map.
    if (verified.familyId !== null && this.revocations.refusesFamily(verified.familyId)) return REVOKED;
    // A token is self-contained: accepted only while this instance's view of revocations is current.
    this.revocations.assertCurrent();
    return verified;
  }

  /** Oldest first out when full: a Map iterates in insertion order. */
  private remember(key: string, remembered: Remembered): void {
    if (!this.cache.has(key) && this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, remembered);
  }
}

function cacheKey(token: string): string {
  return token.length > KEY_LENGTH ? token.slice(-KEY_LENGTH) : token;
}

const EXPIRED: AccessTokenValidation = Object.freeze({ valid: false, reason: 'The token expired.' });
const UNKNOWN_KEY: AccessTokenValidation = Object.freeze({ valid: false, reason: 'The token signing key is unknown.' });
const REVOKED: AccessTokenValidation = Object.freeze({ valid: false, reason: 'The token was revoked.' });
