/**
 * The message catalogues of one service: the built-in English and German ones, with the
 * application's keys over them and its own languages beside them, and the choice of a request's
 * language among them (docs/pages.md, "Languages").
 */
import Negotiator from 'negotiator';
import { de } from './de.ts';
import { en } from './en.ts';
import type { MessageKey, Messages } from './messages.ts';

/** The application's part of the languages (`i18n` among the options). */
export interface LanguageOptions {
  /**
   * Catalogues by language tag (`fr`, `de-CH`): for a language Gatehouse has not (every key, or
   * the start stops naming the missing ones), or some keys of one it has (`en`, `de`) to override.
   */
  readonly languages?: Readonly<Record<string, Partial<Messages>>>;
  /** The language when `Accept-Language` names none of the available ones. @default 'en' */
  readonly defaultLanguage?: string;
  /** One language for every request, whatever `Accept-Language` says. */
  readonly fixedLanguage?: string;
}

/** The built-in catalogues, by language tag. */
export const BUILT_IN_CATALOGUES: Readonly<Record<string, Messages>> = Object.freeze({ en, de });

/** Every key, from the English catalogue (which the types keep complete). */
export const MESSAGE_KEYS: readonly MessageKey[] = Object.freeze(Object.keys(en) as MessageKey[]);

/** The keys `catalogue` lacks or leaves empty: for the start-time check, and for a test of the built-in ones. */
export function missingKeys(catalogue: Partial<Messages>): MessageKey[] {
  return MESSAGE_KEYS.filter((key) => !isMessage(catalogue[key]));
}

function isMessage(value: unknown): boolean {
  return (typeof value === 'string' && value.trim() !== '') || typeof value === 'function';
}

/** A request's `Accept-Language`, as the hosts hand headers over. */
export type AcceptLanguage = string | readonly string[] | undefined;

/** The languages of one service, checked when it starts. */
export class Catalogues {
  /** The available language tags, the default first. */
  readonly languages: readonly string[];
  readonly defaultLanguage: string;
  readonly fixedLanguage: string | null;
  private readonly catalogues: ReadonlyMap<string, Messages>;

  constructor(options: LanguageOptions = {}) {
    this.catalogues = mergedCatalogues(options.languages ?? {});
    this.defaultLanguage = this.available('i18n.defaultLanguage', options.defaultLanguage ?? 'en');
    this.fixedLanguage = options.fixedLanguage === undefined ? null : this.available('i18n.fixedLanguage', options.fixedLanguage);
    const others = [...this.catalogues.keys()].filter((tag) => tag !== this.defaultLanguage);
    // The default first: `Accept-Language: *` then gets it.
    this.languages = Object.freeze([this.defaultLanguage, ...others]);
  }

  /** The application's fixed language; else the best of `Accept-Language` among the available ones; else the default. */
  choose(acceptLanguage: AcceptLanguage): string {
    return this.stated(acceptLanguage) ?? this.defaultLanguage;
  }

  /**
   * The language a request states: the application's fixed one, else the best of its
   * `Accept-Language` when it sends one; undefined when it sends none (an API client that says
   * nothing of its reader), so that nothing is remembered of it.
   */
  stated(acceptLanguage: AcceptLanguage): string | undefined {
    if (this.fixedLanguage !== null) return this.fixedLanguage;
    const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(', ') : acceptLanguage;
    if (typeof header !== 'string' || header.trim() === '') return undefined;
    return new Negotiator({ headers: { 'accept-language': header } }).language([...this.languages]) ?? this.defaultLanguage;
  }

  /** `language` when it is available, else the default: what a page or a mail is written in. */
  availableOr(language: string | undefined): string {
    return language !== undefined && this.catalogues.has(language) ? language : this.defaultLanguage;
  }

  /** The catalogue of `language`; the default's for a language not available (an application's template may pass any). */
  messages(language: string = this.defaultLanguage): Messages {
    return this.catalogues.get(language) ?? this.catalogues.get(this.defaultLanguage)!;
  }

  private available(option: string, tag: string): string {
    if (!this.catalogues.has(tag)) throw new TypeError(`${option} is "${tag}", which has no catalogue: the languages are ${[...this.catalogues.keys()].join(', ')}.`);
    return tag;
  }
}

/** The built-in catalogues with the application's keys over them, and its own languages, each checked. */
function mergedCatalogues(given: Readonly<Record<string, Partial<Messages>>>): Map<string, Messages> {
  if (given === null || typeof given !== 'object') throw new TypeError('i18n.languages must be an object of catalogues by language tag.');
  const catalogues = new Map<string, Messages>(Object.entries(BUILT_IN_CATALOGUES));
  for (const [tag, catalogue] of Object.entries(given)) {
    checkTag(tag);
    checkCatalogue(tag, catalogue);
    const base = catalogues.get(tag);
    if (base === undefined) {
      const missing = missingKeys(catalogue);
      if (missing.length > 0) throw new TypeError(`i18n.languages.${tag} adds a language without the keys ${missing.join(', ')}: give every key, or override keys of en or de.`);
    }
    catalogues.set(tag, Object.freeze({ ...base, ...definedOnly(catalogue) }) as Messages);
  }
  return catalogues;
}

/** A tag as `<html lang>` and Accept-Language write it: `fr`, `pt-BR`. */
function checkTag(tag: string): void {
  let canonical: string[] = [];
  try {
    canonical = Intl.getCanonicalLocales(tag);
  } catch {
    // Refused below.
  }
  if (canonical.length !== 1) throw new TypeError(`i18n.languages has "${tag}", which is not a language tag (such as fr or pt-BR).`);
}

/** Known keys only, each a text or (where English has one) a function of its variables. */
function checkCatalogue(tag: string, catalogue: Partial<Messages>): void {
  if (catalogue === null || typeof catalogue !== 'object') throw new TypeError(`i18n.languages.${tag} must be an object of messages by key.`);
  for (const [key, value] of Object.entries(catalogue)) {
    if (!Object.hasOwn(en, key)) throw new TypeError(`i18n.languages.${tag} has no message "${key}".`);
    if (value === undefined) continue;
    const kind = typeof en[key as MessageKey];
    if (typeof value !== kind || !isMessage(value)) {
      throw new TypeError(`i18n.languages.${tag}.${key} must be ${kind === 'function' ? 'a function of its variables' : 'a text that is not empty'}.`);
    }
  }
}

function definedOnly(catalogue: Partial<Messages>): Partial<Messages> {
  return Object.fromEntries(Object.entries(catalogue).filter(([, value]) => value !== undefined));
}

/** The catalogues of a service without options: English by default, German on request. */
export const BUILT_IN_LANGUAGES = new Catalogues();
