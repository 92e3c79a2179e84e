import type { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import { AuthenticateResult } from '../../authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from '../../authentication-handler.ts';
import { type AuthenticationRequest, singleHeader } from '../../authentication-request.ts';
import { andThen, type MaybePromise } from '../../../maybe-async.ts';

export const BEARER_SCHEME = 'Bearer';

export type BearerTokenValidation = { valid: true; principal: ClaimsPrincipal; expiresAt: number } | { valid: false; reason: string };

/** Checks a token's signature and claims; the scheme itself knows no JWT library. May answer at once (a remembered token). */
export interface BearerTokenValidator {
  validate(token: string): MaybePromise<BearerTokenValidation>;
}

/** `Bearer` followed by exactly one space and a compact JWS; the scheme name is case-insensitive (RFC 9110). */
const BEARER_HEADER = /^bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

/** `Authorization: Bearer <jwt>` (RFC 6750). Tokens in the query string are never read. */
export class BearerHandler implements AuthenticationHandler {
  readonly scheme = BEARER_SCHEME;

  constructor(private readonly validator: BearerTokenValidator) {}

  authenticate(request: AuthenticationRequest): MaybePromise<AuthenticateResult> {
    const header = singleHeader(request, 'authorization');
    if (header === undefined) return AuthenticateResult.noResult();
    // Another scheme's header (Basic, …) is not ours to judge; a repeated header (null) is malformed.
    if (header !== null && !/^bearer(\s|$)/i.test(header)) return AuthenticateResult.noResult();
    const match = header === null ? null : BEARER_HEADER.exec(header);
    if (!match) return AuthenticateResult.fail(this.scheme, 'The token is malformed.');
    return andThen(this.validator.validate(match[1]!), (validation) =>
      validation.valid
        ? AuthenticateResult.success(this.scheme, validation.principal, validation.expiresAt)
        : AuthenticateResult.fail(this.scheme, validation.reason),
    );
  }

  challenge(result: AuthenticateResult): Challenge {
    if (result.kind !== 'fail') return { wwwAuthenticate: 'Bearer' };
    return {
      wwwAuthenticate: `Bearer error="invalid_token", error_description="${result.message}"`,
      detail: result.message,
    };
  }
}
