import { inEnglish, type Phrase } from '../../../../i18n/phrase.ts';
import { Claim } from '../../../claims/claim.ts';
import { ClaimsIdentity } from '../../../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import { AuthenticateResult } from '../../authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from '../../authentication-handler.ts';
import { type AuthenticationRequest, singleHeader } from '../../authentication-request.ts';
import type { CredentialSources } from '../../credential-sources.ts';
import type { RevocationConcerns } from '../../revocation-concerns.ts';

export const API_KEY_SCHEME = 'ApiKey';
const missingApiKey: Phrase = (m) => m.problemApiKeyMissing;
const invalidApiKey: Phrase = (m) => m.problemApiKeyInvalid;
/** The refusals' English texts (`message`); the problem's `detail` is written in the reader's language. */
export const MISSING_API_KEY = inEnglish(missingApiKey);
export const INVALID_API_KEY = inEnglish(invalidApiKey);
/** `X-Api-Key: <key>`. */
export const API_KEY_CREDENTIALS: CredentialSources = Object.freeze({ headers: Object.freeze(['x-api-key']) });
/** A key ends with its revocation, which names the key, not a user. */
export const API_KEY_REVOCATIONS: RevocationConcerns = Object.freeze({ ofAnySubject: Object.freeze(['api-key'] as const) });
/** Longer values are refused unread. */
const MAX_KEY_LENGTH = 256;

type ApiKeyVerdict = { valid: true; client: string } | { valid: false };

export interface ApiKeyValidator {
  validate(key: string): ApiKeyVerdict | Promise<ApiKeyVerdict>;
}

/**
 * `X-Api-Key: <key>`: the exact bytes of a single header. A repeated header (joined by Node
 * with ", ", or an array from other transports) cannot match the key pattern and is invalid.
 * Success gives a principal with claim `client` and no name.
 */
export class ApiKeyHandler implements AuthenticationHandler {
  readonly scheme = API_KEY_SCHEME;
  readonly credentials = API_KEY_CREDENTIALS;
  readonly revocations = API_KEY_REVOCATIONS;

  constructor(private readonly validator: ApiKeyValidator) {}

  async authenticate(request: AuthenticationRequest): Promise<AuthenticateResult> {
    const key = singleHeader(request, 'x-api-key');
    if (key === undefined || (key !== null && key.trim() === '')) return AuthenticateResult.fail(this.scheme, missingApiKey);
    if (key === null || key.length > MAX_KEY_LENGTH) return AuthenticateResult.fail(this.scheme, invalidApiKey);
    const validation = await this.validator.validate(key);
    return validation.valid ? clientSuccess(validation.client) : AuthenticateResult.fail(this.scheme, invalidApiKey);
  }

  challenge(result: AuthenticateResult): Challenge {
    return { wwwAuthenticate: 'ApiKey', detail: result.kind === 'fail' ? (result.wording ?? result.message) : missingApiKey };
  }
}

function clientSuccess(client: string): AuthenticateResult {
  const identity = new ClaimsIdentity([new Claim('client', client)], API_KEY_SCHEME);
  return AuthenticateResult.success(API_KEY_SCHEME, new ClaimsPrincipal([identity]));
}
