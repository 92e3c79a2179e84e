import { inEnglish, type Phrase, type Wording } from '../../i18n/phrase.ts';
import type { ClaimsPrincipal } from '../claims/claims-principal.ts';

/**
 * What a scheme made of a request. "No credentials" (`noResult`) is not "bad credentials"
 * (`fail`): only the second is an `invalid_token`. A failure's `message` is in English (logs,
 * `error_description`); `wording`, when the reason is a phrase of the catalogues, is what the
 * problem's `detail` writes in the reader's language.
 */
export type AuthenticateResult =
  | { readonly kind: 'success'; readonly scheme: string; readonly principal: ClaimsPrincipal; readonly expiresAt?: number }
  | { readonly kind: 'noResult' }
  | { readonly kind: 'fail'; readonly scheme: string; readonly message: string; readonly wording?: Phrase };

export const AuthenticateResult = {
  success(scheme: string, principal: ClaimsPrincipal, expiresAt?: number): AuthenticateResult {
    return expiresAt === undefined ? { kind: 'success', scheme, principal } : { kind: 'success', scheme, principal, expiresAt };
  },
  noResult(): AuthenticateResult {
    return NO_RESULT;
  },
  /** `reason`: a text, the same in every language, or a phrase of the catalogues (`message` is then its English). */
  fail(scheme: string, reason: Wording): AuthenticateResult {
    return typeof reason === 'string' ? { kind: 'fail', scheme, message: reason } : { kind: 'fail', scheme, message: inEnglish(reason), wording: reason };
  },
};

const NO_RESULT: AuthenticateResult = Object.freeze({ kind: 'noResult' });
