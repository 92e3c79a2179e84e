import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { isTokenFault } from '../jwt-bearer/key-source.ts';
import { ExternalProviderUnavailable, ExternalResponseRejected } from './provider-errors.ts';

/**
 * The algorithms an ID token may be signed with (OIDC Core 3.1.3.7, ASVS 9.1.1): the provider's
 * asymmetric keys from its JWKS, or an HMAC with the client secret (OIDC Core 10.1). Never
 * `none`, and only those the provider's metadata lists as its own.
 */
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
const SYMMETRIC = ['HS256', 'HS384', 'HS512'] as const;

/** Allowed between the provider's clock and ours, as for every other token (docs/reference/tokens.md). */
const CLOCK_SKEW_SECONDS = 30;

export interface IdTokenVerifierOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly jwksUri: URL;
  /** `id_token_signing_alg_values_supported` of the provider's metadata; RS256 when it lists none (OIDC Discovery 3). */
  readonly providerAlgorithms: readonly string[] | undefined;
  readonly timeoutMs: number;
  /** Epoch milliseconds. */
  readonly now: () => number;
}

/**
 * Verifies an ID token's signature against the provider's published keys, which openid-client
 * leaves to TLS for the code flow. The key set is fetched at first use and again for a `kid` it
 * does not know (a provider that rotated its keys): such a token comes only from the provider's
 * own token endpoint, behind a single-use correlation and a rate limit, so no cooldown is needed
 * to keep strangers from making us fetch. Then the claims openid-client does not hold to the
 * letter of OIDC Core 3.1.3.7: every audience must be this client, `azp` (when present) too, and
 * `iat` may not lie in the future beyond the skew.
 */
export class IdTokenVerifier {
  private readonly keySet: JWTVerifyGetKey;
  private readonly algorithms: readonly string[];
  private readonly secret: Uint8Array;

  constructor(private readonly options: IdTokenVerifierOptions) {
    this.keySet = publishedKeys(options.jwksUri, options.timeoutMs);
    const listed = options.providerAlgorithms ?? ['RS256'];
    this.algorithms = [...ASYMMETRIC, ...SYMMETRIC].filter((algorithm) => listed.includes(algorithm));
    this.secret = new TextEncoder().encode(options.clientSecret);
  }

  async verify(idToken: string): Promise<JWTPayload> {
    const algorithm = headerAlgorithm(idToken);
    if (!this.algorithms.includes(algorithm)) {
      throw new ExternalResponseRejected('id-token-algorithm', `The ID token is signed with ${JSON.stringify(algorithm.slice(0, 16))}, which is not allowed.`);
    }
    const key = (SYMMETRIC as readonly string[]).includes(algorithm) ? this.secret : this.keySet;
    let payload: JWTPayload;
    try {
      payload = await this.verifiedWith(idToken, key);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSMultipleMatchingKeys)) throw classified(error);
      // A token without `kid` and several keys that fit it: any one of them may have signed it.
      payload = await this.verifiedWithAnyOf(idToken, error);
    }
    this.checkAudience(payload);
    return payload;
  }

  private async verifiedWith(idToken: string, key: Uint8Array | JWTVerifyGetKey | CryptoKey): Promise<JWTPayload> {
    const { payload } = await jwtVerify(idToken, key as JWTVerifyGetKey, {
      algorithms: [...this.algorithms],
      issuer: this.options.issuer,
      audience: this.options.clientId,
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: new Date(this.options.now()),
    });
    return payload;
  }

  private async verifiedWithAnyOf(idToken: string, candidates: AsyncIterable<CryptoKey>): Promise<JWTPayload> {
    let last: unknown;
    for await (const key of candidates) {
      try {
        return await this.verifiedWith(idToken, key);
      } catch (error) {
        last = error;
      }
    }
    throw classified(last);
  }

  private checkAudience(payload: JWTPayload): void {
    const { clientId } = this.options;
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (audiences.some((audience) => audience !== clientId)) {
      throw new ExternalResponseRejected('id-token-audience', 'The ID token is addressed to another party as well.');
    }
    if (payload.azp !== undefined && payload.azp !== clientId) {
      throw new ExternalResponseRejected('id-token-authorized-party', 'The ID token was issued to another client (azp).');
    }
    if (typeof payload.iat !== 'number' || payload.iat > this.options.now() / 1000 + CLOCK_SKEW_SECONDS) {
      throw new ExternalResponseRejected('id-token-issued-at', 'The ID token claims to be issued in the future.');
    }
  }
}

function headerAlgorithm(idToken: string): string {
  try {
    const { alg } = decodeProtectedHeader(idToken);
    if (typeof alg === 'string') return alg;
  } catch {
    // Falls through: a header that cannot be read names no algorithm.
  }
  throw new ExternalResponseRejected('id-token-malformed', 'The ID token has no readable header.');
}

/**
 * jose's remote key set, whose failures to fetch (refused, too slow, not 200, not a JWKS) are the
 * provider's outage, told apart from the token's own faults (no key for its `kid`, an unusable key).
 */
function publishedKeys(url: URL, timeoutMs: number): JWTVerifyGetKey {
  const keySet = createRemoteJWKSet(url, { cooldownDuration: 0, cacheMaxAge: 10 * 60 * 1000, timeoutDuration: timeoutMs });
  return async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (error) {
      if (isTokenFault(error)) throw error;
      throw new ExternalProviderUnavailable(`The provider’s key set ${url.href} could not be fetched.`, { cause: error });
    }
  };
}

/** The token's faults, each with a reason for the audit log; the provider's outage passes through. */
function classified(error: unknown): Error {
  if (error instanceof ExternalProviderUnavailable) return error;
  if (error instanceof joseErrors.JOSEError) {
    if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed) {
      return new ExternalResponseRejected('id-token-signature', 'The ID token is not signed by a key the provider publishes.', { cause: error });
    }
    if (error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired) {
      return new ExternalResponseRejected(`id-token-${error.claim}`, `The ID token's "${error.claim}" claim is not acceptable.`, { cause: error });
    }
  }
  return new ExternalResponseRejected('id-token-invalid', 'The ID token is not valid.', { cause: error });
}
