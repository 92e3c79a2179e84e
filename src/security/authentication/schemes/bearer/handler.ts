import type { Wording } from '../../../../i18n/phrase.ts';
import type { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import { AuthenticateResult } from '../../authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from '../../authentication-handler.ts';
import { type AuthenticationRequest, singleHeader } from '../../authentication-request.ts';
import type { CredentialSources } from '../../credential-sources.ts';
import type { RevocationConcerns } from '../../revocation-concerns.ts';
import { TOKEN_REFUSALS } from './token-refusal.ts';

export const BEARER_SCHEME = 'Bearer';

/**
 * `Authorization: Bearer <token>`, and at `connection_init` the payload's `authorization` field
 * (`{"authorization":"Bearer <jwt>"}`).
 */
export const BEARER_CREDENTIALS: CredentialSources = Object.freeze({
  headers: Object.freeze(['authorization']),
  authorizationScheme: BEARER_SCHEME,
  connectionParams: Object.freeze({ authorization: 'authorization' }),
});

/**
 * Gatehouse's access tokens are refused after any change of their user's stamps (claims or
 * security) or the user's deletion, after the revocation of their signing key, and with their
 * refresh family. An ended family names itself, not its user: every token credential is looked
 * at again.
 */
export const BEARER_REVOCATIONS: RevocationConcerns = Object.freeze({
  ofTheUser: Object.freeze(['user', 'user-deleted'] as const),
  ofAnySubject: Object.freeze(['signing-key', 'family'] as const),
});

/**
 * A validator's verdict. A refusal's `reason` is a fixed sentence that never repeats the token: a
 * text, the same in every language, or a phrase of the catalogues (Gatehouse's own reasons), which
 * the problem's `detail` writes in the reader's language; `error_description` is its English.
 */
export type BearerTokenValidation = { valid: true; principal: ClaimsPrincipal; expiresAt: number } | { valid: false; reason: Wording };

/** Checks a token's signature and claims; the scheme itself knows no JWT library. */
export interface BearerTokenValidator {
  /** The verdict on a well-formed token. */
  validate(token: string): BearerTokenValidation | Promise<BearerTokenValidation>;
}

/** The header names this scheme: `Bearer` alone or followed by white space, in any case (RFC 9110). */
const BEARER_SCHEME_NAME = /^bearer(?:\s|$)/i;
/** `Bearer`, exactly one space: what precedes the token in a well-formed header. */
const SCHEME_AND_SPACE_LENGTH = 'Bearer '.length;
/** A compact JWS: three base64url segments, the last (signature) possibly empty. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * `Authorization: Bearer <jwt>` (RFC 6750). Tokens in the query string are never read. The
 * validator decides whose tokens count (Gatehouse's own, or an external issuer's); `scheme`
 * names the scheme when another bearer scheme sits beside the default one.
 */
export class BearerHandler implements AuthenticationHandler {
  readonly credentials: CredentialSources = BEARER_CREDENTIALS;
  readonly revocations: RevocationConcerns = BEARER_REVOCATIONS;
  private readonly malformed: AuthenticateResult;

  constructor(
    private readonly validator: BearerTokenValidator,
    readonly scheme: string = BEARER_SCHEME,
  ) {
    this.malformed = Object.freeze(AuthenticateResult.fail(scheme, TOKEN_REFUSALS.malformed));
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticateResult> {
    const header = singleHeader(request, 'authorization');
    if (header === undefined) return AuthenticateResult.noResult();
    // Another scheme's header (Basic, …) is not ours to judge; a repeated header (null) is malformed.
    if (header !== null && !BEARER_SCHEME_NAME.test(header)) return AuthenticateResult.noResult();
    const token = header === null ? null : tokenAfterOneSpace(header);
    if (token === null) return this.malformed;
    if (!COMPACT_JWS.test(token)) return this.malformed;
    const validation = await this.validator.validate(token);
    if (!validation.valid) return AuthenticateResult.fail(this.scheme, validation.reason);
    return AuthenticateResult.success(this.scheme, validation.principal, validation.expiresAt);
  }

  challenge(result: AuthenticateResult): Challenge {
    if (result.kind !== 'fail') return { wwwAuthenticate: 'Bearer' };
    return {
      wwwAuthenticate: `Bearer error="invalid_token", error_description="${result.message}"`,
      detail: result.wording ?? result.message,
    };
  }
}

/** What follows `Bearer` and exactly one space (a tab or two spaces is malformed), or null. */
function tokenAfterOneSpace(header: string): string | null {
  return header.charCodeAt(SCHEME_AND_SPACE_LENGTH - 1) === 0x20 ? header.slice(SCHEME_AND_SPACE_LENGTH) : null;
}
