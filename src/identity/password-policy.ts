import { PASSWORD_MAX_LENGTH } from '../config/config.ts';

/**
 * ASP.NET's `Password.RequiredLength` and a ceiling of 128 code points, no composition rules
 * (NIST SP 800-63B). Returns the reasons a password is refused; empty when it is acceptable.
 */
export function passwordProblems(password: string, minLength: number): string[] {
  const length = [...password].length;
  if (length < minLength) return [`The password must have at least ${minLength} characters.`];
  if (length > PASSWORD_MAX_LENGTH) return [`The password must have at most ${PASSWORD_MAX_LENGTH} characters.`];
  return [];
}
