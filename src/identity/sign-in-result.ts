import type { User } from '../store/ports.ts';
import type { TokenPair } from '../tokens/refresh-tokens.ts';
import type { SignedInSession } from './sessions.ts';

/**
 * ASP.NET's `SignInResult`. A failure tells a guesser only "no"; `isNotAllowed` (unconfirmed
 * e-mail) is set only after the right password on an unlocked account, `isLockedOut` only at
 * the second step, and `requiresTwoFactor` only after the right password.
 */
export type SignInResult =
  | {
      readonly succeeded: true;
      readonly user: User;
      readonly requiresTwoFactor?: undefined;
      /** The cookie session the sign-in opened, when it was asked for one (`SignInGrant`). */
      readonly session?: SignedInSession;
      /** The access token and first refresh token of a new family, when it was asked for them. */
      readonly tokens?: TokenPair;
    }
  /** The password was right; the second step signs `user` in (only the HTTP ring sees `user`). */
  | { readonly succeeded: false; readonly requiresTwoFactor: true; readonly user: User; readonly isLockedOut?: undefined; readonly isNotAllowed?: undefined }
  | { readonly succeeded: false; readonly isLockedOut?: true; readonly isNotAllowed?: true; readonly requiresTwoFactor?: undefined };

export type SignInFailure = Extract<SignInResult, { succeeded: false }>;

export const SignInResult = {
  success: (user: User): SignInResult => ({ succeeded: true, user }),
  twoFactorRequired: (user: User): SignInResult => ({ succeeded: false, requiresTwoFactor: true, user }),
  failed: { succeeded: false } as SignInResult,
  notAllowed: { succeeded: false, isNotAllowed: true } as SignInResult,
  lockedOut: { succeeded: false, isLockedOut: true } as SignInResult,
};
