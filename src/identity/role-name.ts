import { enErrors } from '../i18n/en-errors.ts';
import { GatehouseError } from '../security/errors.ts';

/**
 * Role names: a letter, then letters, digits, dots, underscores or hyphens, 64 at most. Roles
 * travel in tokens, cookies, logs and the CLI's tab-separated lines, and policies compare them
 * exactly: no spaces, look-alike letters or control characters that would make two names look
 * the same or break a line.
 */
const ROLE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** The rule in one sentence, in English; it never repeats the refused name, which may hold anything. */
export const ROLE_NAME_RULE = enErrors.errorRoleNameRule;

export function isValidRoleName(role: string): boolean {
  return ROLE_NAME_PATTERN.test(role);
}

/** Throws the 400 (`errors.role`) for a name that breaks the rule. */
export function checkRoleName(role: string): void {
  if (!isValidRoleName(role)) throw GatehouseError.validation({ role: [(m) => m.errorRoleNameRule] });
}
