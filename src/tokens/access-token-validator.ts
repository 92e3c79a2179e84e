import type { RevocationList } from '../revocation/revocation-list.ts';
import type { BearerTokenValidator } from '../security/authentication/index.ts';
import { TOKEN_REFUSALS } from '../security/authentication/schemes/bearer/token-refusal.ts';
import type { AccessTokens, AccessTokenValidation, VerifiedAccessToken } from './access-token.ts';
import type { KeyRing } from './key-ring.ts';

/**
 * The Bearer scheme's validator: the token's signature and claims, then what can change after it
 * was signed — its signing key's place in the ring, and revocations. It remembers nothing: a
 * verdict is remembered at the request's edge (schemes/credential-verdicts.ts), which forgets it
 * at each revocation event that concerns it.
 */
export class AccessTokenValidator implements BearerTokenValidator {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly keyRing: KeyRing,
    private readonly revocations: RevocationList,
  ) {}

  async validate(token: string): Promise<AccessTokenValidation> {
    const result = await this.tokens.verify(token);
    return result.valid ? this.stillCounts(result) : result;
  }

  /**
   * What can change after signing. Throws `RevocationsStaleError` for a token that would be
   * accepted while the revocation feed is stale.
   */
  private stillCounts(verified: VerifiedAccessToken): AccessTokenValidation {
    if (this.keyRing.verificationKey(verified.kid) === undefined) return UNKNOWN_KEY;
    if (this.revocations.refusesAccessToken(verified.userId, verified.stamp)) return REVOKED;
    if (verified.familyId !== null && this.revocations.refusesFamily(verified.familyId)) return REVOKED;
    // A token is self-contained: accepted only while this instance's view of revocations is current.
    this.revocations.assertCurrent();
    return verified;
  }
}

const UNKNOWN_KEY: AccessTokenValidation = Object.freeze({ valid: false, reason: TOKEN_REFUSALS.signingKeyUnknown });
const REVOKED: AccessTokenValidation = Object.freeze({ valid: false, reason: TOKEN_REFUSALS.revoked });
