import { en } from '../i18n/en.ts';
import { inEnglish, type Phrase, type WordedFieldErrors, worded, wordedFieldErrors, type Wording } from '../i18n/phrase.ts';
import type { Messages } from '../i18n/messages.ts';
import type { ProblemMessages } from '../i18n/problem-messages.ts';
import { ERROR_CODES, type GatehouseError, type GatehouseErrorCode } from './errors.ts';

/** The media type of a problem body (RFC 9457). */
export const PROBLEM_JSON = 'application/problem+json';

/** `type` of a problem: a stable URN per error code (RFC 9457). */
export function problemType(code: GatehouseErrorCode): string {
  return `urn:gatehouse:problem:${code.slice(3).toLowerCase().replaceAll('_', '-')}`;
}

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly [extension: string]: unknown;
}

/** A problem's detail and field errors as the catalogues word them, for a reader of another language. */
export interface ProblemWording {
  readonly detail?: Wording;
  readonly errors?: WordedFieldErrors;
}

/** Where a body keeps its wording: not a member of the JSON, which is in English until a host writes it in the reader's language. */
const WORDING = Symbol('problem wording');

type WordedBody = ProblemBody & { readonly [WORDING]?: ProblemWording };

/**
 * The problem body of an error code: its type, title and status from the one table, its code, and
 * what the caller adds. Every transport that answers in problem+json builds its body here. The
 * detail and `errors` may be phrases of the catalogues: the body is in English, and remembers
 * them for `problemIn`.
 */
export function problem(code: GatehouseErrorCode, detail?: Wording, extensions: Readonly<Record<string, unknown>> & { readonly errors?: WordedFieldErrors } = {}): ProblemBody {
  const { status, title } = ERROR_CODES[code];
  const { errors } = extensions;
  const body: ProblemBody = {
    type: problemType(code),
    title,
    status,
    ...(detail === undefined ? {} : { detail: inEnglish(detail) }),
    ...extensions,
    ...(errors === undefined ? {} : { errors: wordedFieldErrors(errors, en) }),
    code,
  };
  const wording: ProblemWording = { ...(typeof detail === 'function' ? { detail } : {}), ...(errors !== undefined && hasPhrase(errors) ? { errors } : {}) };
  if (wording.detail !== undefined || wording.errors !== undefined) Object.defineProperty(body, WORDING, { value: wording });
  return body;
}

/**
 * `body` in the language of `messages`: the title of its status, and the detail and field errors
 * its wording gives (RFC 9457 lets both follow the reader; `type`, `status` and `code` never change).
 */
export function problemIn(body: ProblemBody, messages: Messages): ProblemBody {
  const titleKey = TITLE_KEYS[body.status];
  const wording = (body as WordedBody)[WORDING];
  if (titleKey === undefined && wording === undefined) return body;
  return {
    ...body,
    ...(titleKey === undefined ? {} : { title: messages[titleKey] }),
    ...(wording?.detail === undefined ? {} : { detail: worded(wording.detail, messages) }),
    ...(wording?.errors === undefined ? {} : { errors: wordedFieldErrors(wording.errors, messages) }),
  };
}

function hasPhrase(errors: WordedFieldErrors): boolean {
  return Object.values(errors).some((list) => list.some((wording): wording is Phrase => typeof wording === 'function'));
}

/** A key of a text without variables, as a title is. */
type TitleKey = { [Key in keyof ProblemMessages]: ProblemMessages[Key] extends string ? Key : never }[keyof ProblemMessages];

/** The title of each status a problem of Gatehouse's has: HTTP's reason phrase, in the reader's language. */
const TITLE_KEYS: Readonly<Partial<Record<number, TitleKey>>> = {
  400: 'problemTitleBadRequest',
  401: 'problemTitleUnauthorized',
  403: 'problemTitleForbidden',
  404: 'problemTitleNotFound',
  405: 'problemTitleMethodNotAllowed',
  408: 'problemTitleRequestTimeout',
  409: 'problemTitleConflict',
  413: 'problemTitlePayloadTooLarge',
  415: 'problemTitleUnsupportedMediaType',
  429: 'problemTitleTooManyRequests',
  431: 'problemTitleHeadersTooLarge',
  500: 'problemTitleInternalServerError',
  502: 'problemTitleBadGateway',
  503: 'problemTitleServiceUnavailable',
};

/** The problem body of a `GatehouseError`: its code, detail and extensions, with their wording. */
export function problemOf(error: GatehouseError): ProblemBody {
  const { wording } = error;
  return problem(error.code, wording.detail, { ...error.extensions, ...(wording.errors === undefined ? {} : { errors: wording.errors }) });
}
