import type { ClaimsPrincipal } from '../claims/claims-principal.ts';

/**
 * What a scheme made of a request. "No credentials" (`noResult`) is not "bad credentials"
 * (`fail`): only the second is an `invalid_token`.
 */
export type AuthenticateResult =
  | { readonly kind: 'success'; readonly scheme: string; readonly principal: ClaimsPrincipal; readonly expiresAt?: number }
  | { readonly kind: 'noResult' }
  | { readonly kind: 'fail'; readonly scheme: string; readonly message: string };

export const AuthenticateResult = {
  success(scheme: string, principal: ClaimsPrincipal, expiresAt?: number): AuthenticateResult {
    return expiresAt === undefined ? { kind: 'success', scheme, principal } : { kind: 'success', scheme, principal, expiresAt };
  },
  noResult(): AuthenticateResult {
    return NO_RESULT;
  },
  fail(scheme: string, message: string): AuthenticateResult {
    return { kind: 'fail', scheme, message };
  },
};

const NO_RESULT: AuthenticateResult = Object.freeze({ kind: 'noResult' });
