import { errors as joseErrors } from 'jose';

/**
 * One fixed sentence per reason a JWT was refused, for `error_description` (RFC 6750): never the
 * token, never the library's text. Gatehouse's own tokens and an external issuer's alike.
 */
export function tokenRefusalReason(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token expired.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
      case 'iat':
        return 'The token is not valid yet.';
      case 'iss':
        return 'The token has the wrong issuer.';
      case 'aud':
        return 'The token has the wrong audience.';
      case 'typ':
        return 'The token is not an access token.';
      default:
        return 'The token lacks a required claim.';
    }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The token algorithm is not allowed.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature is invalid.';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'The token signing key is unknown.';
  return 'The token is malformed.';
}
