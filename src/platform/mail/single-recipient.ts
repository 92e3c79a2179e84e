/**
 * One bare address and nothing else. Mail goes only to the stored address (docs/reference/membership.md);
 * refusing separators, brackets and white space here means no value can smuggle in a second
 * recipient or a header, whatever a mail library would make of it.
 */
const SINGLE_ADDRESS = /^[^\s,;:<>"()[\]\\]+@[^\s,;:<>"()\\]+$/u;

export function assertSingleRecipient(to: string): void {
  if (!SINGLE_ADDRESS.test(to)) throw new Error('A mail goes to exactly one bare address (no name, list or line break).');
}
