import { Claim } from '../../../claims/claim.ts';
import { ClaimsIdentity } from '../../../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import { AuthenticateResult } from '../../authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from '../../authentication-handler.ts';
import { type AuthenticationRequest, singleHeader } from '../../authentication-request.ts';
import { andThen, type MaybePromise } from '../../../maybe-async.ts';

export const API_KEY_SCHEME = 'ApiKey';
export const MISSING_API_KEY = 'Missing API key';
export const INVALID_API_KEY = 'Invalid API key';
/** Longer values are refused unread. */
const MAX_KEY_LENGTH = 256;

/** May answer at once (a remembered key). */
export interface ApiKeyValidator {
  validate(key: string): MaybePromise<{ valid: true; client: string } | { valid: false }>;
}

/**
 * `X-Api-Key: <key>`: the exact bytes of a single header. A repeated header (joined by Node
 * with ", ", or an array from other transports) cannot match the key pattern and is invalid.
 * Success gives a principal with claim `client` and no name.
 */
export class ApiKeyHandler implements AuthenticationHandler {
  readonly scheme = API_KEY_SCHEME;

  constructor(private readonly validator: ApiKeyValidator) {}

  authenticate(request: AuthenticationRequest): MaybePromise<AuthenticateResult> {
    const key = singleHeader(request, 'x-api-key');
    if (key === undefined || (key !== null && key.trim() === '')) return AuthenticateResult.fail(this.scheme, MISSING_API_KEY);
    if (key === null || key.length > MAX_KEY_LENGTH) return AuthenticateResult.fail(this.scheme, INVALID_API_KEY);
    return andThen(this.validator.validate(key), (validation) => {
      if (!validation.valid) return AuthenticateResult.fail(this.scheme, INVALID_API_KEY);
      const identity = new ClaimsIdentity([new Claim('client', validation.client)], API_KEY_SCHEME);
      return AuthenticateResult.success(this.scheme, new ClaimsPrincipal([identity]));
    });
  }

  challenge(result: AuthenticateResult): Challenge {
    return { wwwAuthenticate: 'ApiKey', detail: result.kind === 'fail' ? result.message : MISSING_API_KEY };
  }
}
