/**
 * What every mail keeps, whoever wrote its template (docs/reference/membership.md, "Mail and
 * SMS"), checked on each mail as rendered, before it leaves:
 * - the subject is one line (a line break would let a value add headers) with no link and no
 *   code: the dev outbox and the logs show subjects;
 * - a mail with a link holds exactly one URL in its text, that link, and the HTML's one href is
 *   the same link: people and programs follow "the link of the mail";
 * - a sign-in code is the only run of six digits in its text, which holds no link;
 * - a notice holds no link and no run of six digits.
 * A template cannot be checked for escaping its HTML: the names it gets are already plain words.
 */

/** A mail as a template renders it: the subject, the text part, and an HTML part beside it. */
export interface MailContent {
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

/**
 * What a mail carries that the rules look for: its one link (and the code inside it), a sign-in
 * code, or nothing (a notice).
 */
export type MailSecret =
  | { readonly kind: 'link'; readonly link: string; readonly code: string }
  | { readonly kind: 'code'; readonly code: string }
  | { readonly kind: 'notice' };

/** A template's mail broke a rule: a mistake in the template, told by its name, never with its words (they may hold a code). */
export class MailTemplateError extends Error {
  override readonly name = 'MailTemplateError';
}

/** Anything that reads as a link, http or not. */
const LINKISH = /[a-z][a-z0-9+.-]*:\/\/|www\./gi;
const SIX_DIGITS = /\d{6,}/g;
/** Line breaks and other control characters: none belongs in a header. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** `content` when it keeps the rules; else a MailTemplateError naming the template `name` and the rule. */
export function checkMailContent(name: string, content: unknown, secret: MailSecret): MailContent {
  const refuse = (problem: string) => new MailTemplateError(`The "${name}" mail template ${problem}.`);
  if (!isContent(content)) throw refuse('must return { subject, text, html? } with strings');
  const { subject, text, html } = content;
  if (subject.trim() === '' || text.trim() === '') throw refuse('must return a subject and a text that are not empty');
  if (CONTROL.test(subject)) throw refuse('returned a subject with a line break or a control character (it would be a header of its own)');
  if (count(subject, LINKISH) > 0 || holdsSecret(subject, secret)) throw refuse('returned a subject with a link or a code (subjects are logged)');
  if (secret.kind === 'link') checkLink(text, html, secret.link, refuse);
  else checkNoLink(text, html, refuse);
  if (secret.kind === 'code' && !sameList(text.match(SIX_DIGITS) ?? [], [secret.code])) {
    throw refuse('must hold the code as the only run of six digits in its text');
  }
  if (secret.kind === 'notice' && count(text, SIX_DIGITS) > 0) throw refuse('returned a notice with a run of six digits (notices hold no code)');
  return html === undefined ? { subject, text } : { subject, text, html };
}

function checkLink(text: string, html: string | undefined, link: string, refuse: (problem: string) => Error): void {
  // The link once, as a word of its own, and nothing else that reads as one.
  const parts = text.split(link);
  const whole = parts.length === 2 && /(^|[\s<])$/.test(parts[0]!) && /^($|[\s>])/.test(parts[1]!);
  if (!whole || count(parts.join(' '), LINKISH) > 0) throw refuse('must hold its link as the only URL of its text');
  if (html !== undefined && !sameList(hrefs(html), [link])) throw refuse('must hold its link as the only href of its HTML');
}

function checkNoLink(text: string, html: string | undefined, refuse: (problem: string) => Error): void {
  if (count(text, LINKISH) > 0) throw refuse('returned a text with a link (this mail holds none)');
  if (html !== undefined && hrefs(html).length > 0) throw refuse('returned HTML with a link (this mail holds none)');
}

function isContent(value: unknown): value is MailContent {
  if (typeof value !== 'object' || value === null) return false;
  const { subject, text, html } = value as Record<string, unknown>;
  return typeof subject === 'string' && typeof text === 'string' && (html === undefined || typeof html === 'string');
}

function holdsSecret(subject: string, secret: MailSecret): boolean {
  if (secret.kind === 'link') return subject.includes(secret.link) || subject.includes(secret.code);
  return count(subject, SIX_DIGITS) > 0;
}

/** Every href of the HTML, its character references decoded. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)].map((match) => decodeReferences(match[1] ?? match[2] ?? match[3] ?? ''));
}

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeReferences(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (reference, body: string) => {
    if (!body.startsWith('#')) return NAMED[body.toLowerCase()] ?? reference;
    const point = /^#x/i.test(body) ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return point <= 0x10ffff ? String.fromCodePoint(point) : reference;
  });
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function sameList(found: readonly string[], expected: readonly string[]): boolean {
  return found.length === expected.length && found.every((item, index) => item === expected[index]);
}

/**
 * The product's name as every mail shows it (the pages' `productName`): one line of words, with
 * no link and no six digits in a row, so that it breaks none of the rules above in any mail.
 */
export function checkProductName(name: unknown): string {
  const refuse = (problem: string) => new Error(`pages.productName names the product in every mail: ${problem} (got ${JSON.stringify(name)}).`);
  if (typeof name !== 'string' || name.trim() === '') throw refuse('it must be a string that is not empty');
  if (name.length > 100) throw refuse('it must be at most 100 characters');
  if (CONTROL.test(name)) throw refuse('it must be one line, without control characters');
  if (count(name, LINKISH) > 0 || count(name, SIX_DIGITS) > 0) throw refuse('it must hold no link and no six digits in a row');
  return name;
}
