import type { User } from '../store/ports.ts';

/**
 * ASP.NET's `SignInResult`. A failure tells a guesser only "no"; `isNotAllowed` (unconfirmed
 * e-mail) is set only after the right password on an unlocked account.
 */
export type SignInResult =
  | { readonly succeeded: true; readonly user: User }
  | {
      readonly succeeded: false;
      readonly isLockedOut?: true;
      readonly isNotAllowed?: true;
      readonly requiresTwoFactor?: true;
    };

export const SignInResult = {
  success: (user: User): SignInResult => ({ succeeded: true, user }),
  failed: { succeeded: false } as SignInResult,
  notAllowed: { succeeded: false, isNotAllowed: true } as SignInResult,
};
