import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, type JWTPayload } from 'jose';

/** What an HMAC-signed token is checked against: the same rules `jwtVerify` is given for other keys. */
export interface HmacVerification {
  readonly key: KeyObject;
  readonly algorithms: readonly string[];
  readonly issuer: readonly string[];
  readonly audience: readonly string[];
  readonly tokenType: string | undefined;
  readonly clockSkewSeconds: number;
  /** Epoch ms. */
  readonly now: number;
}

const HASHES: Readonly<Record<string, string>> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Verifies a compact JWS signed with a shared secret (HS256/384/512) and its claims, synchronously
 * with node:crypto: jose verifies HMACs through WebCrypto, which imports the key and hops to the
 * thread pool for every token, several times the cost of the check itself. The same rules as
 * jose's `jwtVerify` with `requiredClaims: ['exp']`, and stricter where a token could only be odd:
 * `crit` and `b64` headers are refused, and the signature must be in canonical base64url. Throws
 * jose's own errors, so that refusals read the same (`tokenRefusalReason`).
 */
export function verifyHmacJwt(token: string, rules: HmacVerification): JWTPayload {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw new joseErrors.JWSInvalid('Invalid Compact JWS');
  const [encodedHeader, encodedPayload, signature] = parts as [string, string, string];
  const header = jsonObject(encodedHeader, () => new joseErrors.JWSInvalid('JWS Protected Header is invalid'));
  if ('crit' in header || 'b64' in header) throw new joseErrors.JWSInvalid('The crit and b64 JWS header parameters are not accepted');
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '') throw new joseErrors.JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (!rules.algorithms.includes(alg) || HASHES[alg] === undefined) throw new joseErrors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  const expected = Buffer.from(createHmac(HASHES[alg], rules.key).update(`${encodedHeader}.${encodedPayload}`).digest('base64url'));
  const presented = Buffer.from(signature);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw new joseErrors.JWSSignatureVerificationFailed();
  const payload = jsonObject(encodedPayload, () => new joseErrors.JWTInvalid('JWT Claims Set must be a top-level JSON object')) as JWTPayload;
  checkClaims(header, payload, rules);
  return payload;
}

function jsonObject(encoded: string, invalid: () => Error): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(Buffer.from(encoded, 'base64url')));
  } catch {
    throw invalid();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid();
  return value as Record<string, unknown>;
}

/** jose's claim checks (`validateClaimsSet`), in its order: `typ`, presence, `iss`, `aud`, `iat`'s type, `nbf`, `exp`. */
function checkClaims(header: Record<string, unknown>, payload: JWTPayload, rules: HmacVerification): void {
  const failed = (claim: string, message: string, reason = 'check_failed') => new joseErrors.JWTClaimValidationFailed(message, payload, claim, reason);
  if (rules.tokenType !== undefined && (typeof header.typ !== 'string' || mediaType(header.typ) !== mediaType(rules.tokenType))) {
    throw failed('typ', 'unexpected "typ" JWT header value');
  }
  for (const claim of ['iss', 'aud', 'exp']) if (!Object.hasOwn(payload, claim)) throw failed(claim, `missing required "${claim}" claim`, 'missing');
  if (!rules.issuer.includes(payload.iss as string)) throw failed('iss', 'unexpected "iss" claim value');
  const { aud } = payload;
  const audienceMatches = typeof aud === 'string' ? rules.audience.includes(aud) : Array.isArray(aud) && rules.audience.some((wanted) => aud.includes(wanted));
  if (!audienceMatches) throw failed('aud', 'unexpected "aud" claim value');
  const now = Math.floor(rules.now / 1000);
  const skew = rules.clockSkewSeconds;
  numericDate(payload, 'iat', failed);
  const nbf = numericDate(payload, 'nbf', failed);
  if (nbf !== undefined && nbf > now + skew) throw failed('nbf', '"nbf" claim timestamp check failed');
  const exp = numericDate(payload, 'exp', failed)!;
  if (exp <= now - skew) throw new joseErrors.JWTExpired('"exp" claim timestamp check failed', payload, 'exp', 'check_failed');
}

function numericDate(payload: JWTPayload, claim: 'iat' | 'nbf' | 'exp', failed: (claim: string, message: string, reason?: string) => Error): number | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw failed(claim, `"${claim}" claim must be a number`, 'invalid');
  return value;
}

/** A `typ` as a media type, as jose compares them: case-insensitive, `application/` implied. */
function mediaType(value: string): string {
  const lower = value.toLowerCase();
  return value.includes('/') ? lower : `application/${lower}`;
}
