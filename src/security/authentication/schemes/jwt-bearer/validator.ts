import { createSecretKey, type KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { type Clock, systemClock } from '../../../../platform/clock.ts';
import type { BearerTokenValidation, BearerTokenValidator } from '../bearer/handler.ts';
import { keySourceFor, type KeySource, type VerificationKeys } from './key-source.ts';
import { IssuerMetadataError } from './openid-configuration.ts';
import type { ResolvedJwtBearerOptions } from './options.ts';
import { principalOf } from './principal.ts';
import { TokenMemory } from './token-memory.ts';
import { verifyHmacJwt } from './hmac-jws.ts';
import { TOKEN_REFUSALS, tokenRefusalReason } from '../bearer/token-refusal.ts';

/** Longer "tokens" are refused before any parsing. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * Verifies an external issuer's JWT access tokens with the checks Gatehouse's own tokens get:
 * the algorithm from the allow-list only (never from the header alone; `none` never), the key
 * from the configured source only (never `jwk`, `jku` or `x5u` headers), `iss`, `aud`, `typ`
 * when configured, `exp` required, `exp`/`nbf`/`iat` with the allowed skew, then the
 * application's own `validate`. Verified tokens are remembered (`TokenMemory`).
 */
export class ExternalTokenValidator implements BearerTokenValidator {
  private readonly keySource: KeySource;
  private readonly memory: TokenMemory;
  private readonly clock: Clock;
  /** The shared secret, for tokens verified synchronously (hmac-jws.ts); undefined for public keys. */
  private readonly secret: KeyObject | undefined;
  /** The issuer's failure last told to `onError`. */
  private lastReported: IssuerMetadataError | undefined;

  constructor(private readonly options: ResolvedJwtBearerOptions) {
    this.keySource = keySourceFor(options);
    this.memory = new TokenMemory(options.cacheSize);
    this.clock = options.clock ?? systemClock;
    this.secret = options.keySource.kind === 'secret' ? createSecretKey(options.keySource.secret) : undefined;
  }

  async validate(token: string): Promise<BearerTokenValidation> {
    const remembered = this.memory.recall(token, this.clock.now());
    if (remembered !== undefined) return remembered;
    return this.secret === undefined ? this.verify(token) : this.verifyWithSecret(token, this.secret);
  }

  /** The issuer's keys now (reading its metadata if due); throws `IssuerMetadataError` when they cannot be had. */
  keys(): Promise<VerificationKeys> | VerificationKeys {
    return this.keySource.keys();
  }

  private async verify(token: string): Promise<BearerTokenValidation> {
    if (token.length > MAX_TOKEN_LENGTH) return MALFORMED;
    try {
      const payload = await this.verifiedPayload(token, await this.keys());
      if (this.options.validate !== undefined && (await this.options.validate(payload)) !== true) return REFUSED;
      return this.accepted(token, payload);
    } catch (error) {
      return this.failureOf(error);
    }
  }

  /** A token of the shared secret, verified without jose's asynchronous key handling (hmac-jws.ts). */
  private async verifyWithSecret(token: string, key: KeyObject): Promise<BearerTokenValidation> {
    if (token.length > MAX_TOKEN_LENGTH) return MALFORMED;
    const { algorithms, audience, tokenType, clockSkewSeconds, validate } = this.options;
    try {
      const now = this.clock.now();
      const payload = verifyHmacJwt(token, { key, algorithms, issuer: this.options.issuer!, audience, tokenType, clockSkewSeconds, now });
      checkIssuedAt(payload, now, clockSkewSeconds);
      if (validate !== undefined && (await validate(payload)) !== true) return REFUSED;
      return this.accepted(token, payload);
    } catch (error) {
      return this.failureOf(error);
    }
  }

  /** The principal of a verified token, remembered until it expires or its keys are due again. */
  private accepted(token: string, payload: JWTPayload): BearerTokenValidation {
    const validation = { valid: true as const, principal: principalOf(payload, this.options.scheme, this.options), expiresAt: payload.exp! * 1000 };
    const now = this.clock.now();
    this.memory.remember(token, validation, Math.min(validation.expiresAt + this.options.clockSkewSeconds * 1000, now + this.options.jwksMaxAgeMs));
    return validation;
  }

  private async verifiedPayload(token: string, keys: VerificationKeys): Promise<JWTPayload> {
    const { algorithms, audience, tokenType, clockSkewSeconds } = this.options;
    const now = this.clock.now();
    const { payload } = await jwtVerify(token, keys.key as Parameters<typeof jwtVerify>[1], {
      algorithms: [...algorithms],
      issuer: [...keys.issuer],
      audience: [...audience],
      ...(tokenType !== undefined ? { typ: tokenType } : {}),
      clockTolerance: clockSkewSeconds,
      currentDate: new Date(now),
      requiredClaims: ['exp'],
    });
    checkIssuedAt(payload, now, clockSkewSeconds);
    return payload;
  }

  private failureOf(error: unknown): BearerTokenValidation {
    if (error instanceof IssuerMetadataError) {
      // One report per failed fetch: tokens refused during its backoff bring the same error again.
      if (error !== this.lastReported) {
        this.lastReported = error;
        this.options.onError(error);
      }
      return UNAVAILABLE;
    }
    if (!(error instanceof joseErrors.JOSEError)) {
      // The application's `validate` threw: its error is for its own log, never for the caller.
      this.options.onError(error instanceof Error ? error : new Error(String(error)));
      return REFUSED;
    }
    return { valid: false, reason: tokenRefusalReason(error) };
  }
}

/** jose checks `iat` only against a maximum age; a token issued in the future is refused here. */
function checkIssuedAt(payload: JWTPayload, now: number, clockSkewSeconds: number): void {
  if (payload.iat !== undefined && payload.iat > Math.floor(now / 1000) + clockSkewSeconds) throw new joseErrors.JWTClaimValidationFailed('iat in the future', payload, 'iat', 'check_failed');
}

const MALFORMED: BearerTokenValidation = Object.freeze({ valid: false, reason: TOKEN_REFUSALS.malformed });
const REFUSED: BearerTokenValidation = Object.freeze({ valid: false, reason: TOKEN_REFUSALS.refused });
const UNAVAILABLE: BearerTokenValidation = Object.freeze({ valid: false, reason: TOKEN_REFUSALS.issuerKeysUnavailable });
