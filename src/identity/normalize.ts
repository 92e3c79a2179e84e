/**
 * The canonical forms used for uniqueness and look-ups. E-mails: NFKC, then `toLowerCase()`
 * without locale (so no Turkish dotless-i surprises). Mail always goes to the stored address,
 * never to the one a caller typed.
 */
export function normalizeEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase();
}

/**
 * Whether two addresses are the same mailbox beyond doubt, as linking by e-mail requires: equal
 * after `normalizeEmail`, and each one already in NFKC form. NFKC folds look-alikes into plain
 * letters (fullwidth `ｖ`, mathematical `𝐯`, the ligature `ﬁ`, the Kelvin sign `K`): such an
 * address only resembles the account's, and whoever proved it owns another mailbox.
 */
export function sameEmail(asserted: string, stored: string): boolean {
  return isNfkcStable(asserted) && isNfkcStable(stored) && normalizeEmail(asserted) === normalizeEmail(stored);
}

/** Whether NFKC leaves the address as it is: no look-alike letters folded into plain ones. */
export function isNfkcStable(email: string): boolean {
  return email.normalize('NFKC') === email;
}

/** User names are ASCII (`[A-Za-z0-9._-]{3,64}`) and unique regardless of case. */
export function normalizeUserName(userName: string): string {
  return userName.toLowerCase();
}

export const USER_NAME_PATTERN = /^[A-Za-z0-9._-]{3,64}$/;

/**
 * A pragmatic e-mail check: one @, a dot-separated domain, no spaces or control characters, none
 * of the characters that separate or quote addresses (the mailer refuses them, so such an account
 * could never be mailed), at most 254 characters. Deliverability is proven by the confirmation
 * mail, not by a regex.
 */
export function isValidEmail(email: string): boolean {
  if (email.length > 254 || /[\s\p{Cc}\p{Cf},;:<>"()[\]\\]/u.test(email)) return false;
  return /^[^@]+@[^@.]+(\.[^@.]+)+$/.test(email);
}
