/**
 * A text that is written in its reader's language where the answer is made, not where the text
 * is decided: a use case refuses with a phrase of the catalogues, and each host writes it in the
 * language of the request it answers (a problem's `detail`, a form's errors).
 */
import { en } from './en.ts';
import type { Messages } from './messages.ts';

/** A text of the catalogues, not yet in a language: `(m) => m.problemNoSuchResource`. */
export type Phrase = (messages: Messages) => string;

/** A text as a refusal gives it: a phrase of the catalogues, or a text that is the same in every language (an application's own). */
export type Wording = string | Phrase;

/** Field name → its errors, each a phrase or a text. */
export type WordedFieldErrors = Readonly<Record<string, readonly Wording[]>>;

/** `wording` in the language of `messages`. */
export function worded(wording: Wording, messages: Messages): string {
  return typeof wording === 'string' ? wording : wording(messages);
}

/** `wording` in English, as logs and `Error.message` carry it. */
export function inEnglish(wording: Wording): string {
  return worded(wording, en);
}

/** Every error of `errors` in the language of `messages`. */
export function wordedFieldErrors(errors: WordedFieldErrors, messages: Messages): Record<string, string[]> {
  const written: Record<string, string[]> = {};
  for (const field in errors) written[field] = errors[field]!.map((wording) => worded(wording, messages));
  return written;
}
