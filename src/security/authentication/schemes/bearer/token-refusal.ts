import { errors as joseErrors } from 'jose';
import type { Phrase } from '../../../../i18n/phrase.ts';

/**
 * Why a bearer token is refused, each a phrase of the catalogues: the problem's `detail` in the
 * reader's language, and in English the `error_description` (RFC 6750). Gatehouse's own tokens
 * and an external issuer's alike.
 */
export const TOKEN_REFUSALS = Object.freeze({
  malformed: (m) => m.problemTokenMalformed,
  expired: (m) => m.problemTokenExpired,
  notYetValid: (m) => m.problemTokenNotYetValid,
  wrongIssuer: (m) => m.problemTokenWrongIssuer,
  wrongAudience: (m) => m.problemTokenWrongAudience,
  notAccessToken: (m) => m.problemTokenNotAccessToken,
  claimMissing: (m) => m.problemTokenClaimMissing,
  algorithmNotAllowed: (m) => m.problemTokenAlgorithmNotAllowed,
  signatureInvalid: (m) => m.problemTokenSignatureInvalid,
  signingKeyUnknown: (m) => m.problemTokenSigningKeyUnknown,
  lifetimeTooLong: (m) => m.problemTokenLifetimeTooLong,
  revoked: (m) => m.problemTokenRevoked,
  refused: (m) => m.problemTokenRefused,
  issuerKeysUnavailable: (m) => m.problemIssuerKeysUnavailable,
} satisfies Record<string, Phrase>);

/** One fixed reason per way a JWT library refuses a token: never the token, never the library's text. */
export function tokenRefusalReason(error: unknown): Phrase {
  if (error instanceof joseErrors.JWTExpired) return TOKEN_REFUSALS.expired;
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
      case 'iat':
        return TOKEN_REFUSALS.notYetValid;
      case 'iss':
        return TOKEN_REFUSALS.wrongIssuer;
      case 'aud':
        return TOKEN_REFUSALS.wrongAudience;
      case 'typ':
        return TOKEN_REFUSALS.notAccessToken;
      default:
        return TOKEN_REFUSALS.claimMissing;
    }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return TOKEN_REFUSALS.algorithmNotAllowed;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return TOKEN_REFUSALS.signatureInvalid;
  if (error instanceof joseErrors.JWKSNoMatchingKey) return TOKEN_REFUSALS.signingKeyUnknown;
  return TOKEN_REFUSALS.malformed;
}
