export { BUILT_IN_CATALOGUES, BUILT_IN_LANGUAGES, Catalogues, type LanguageOptions, MESSAGE_KEYS, missingKeys } from './catalogue.ts';
export { de } from './de.ts';
export { en } from './en.ts';
export type { MessageKey, Messages } from './messages.ts';
export type { Phrase, WordedFieldErrors, Wording } from './phrase.ts';
