/**
 * Every error the service answers with, in one table: a stable code, the HTTP status and the
 * problem title. `docs/errors.md` lists the same codes (a test keeps the two in step). One mapper
 * (`problem-details.ts`) turns them into application/problem+json bodies.
 */
import { en } from '../i18n/en.ts';
import { inEnglish, type WordedFieldErrors, wordedFieldErrors, type Wording } from '../i18n/phrase.ts';
import type { ProblemWording } from './problem-details.ts';

export const ERROR_CODES = {
  GH_UNAUTHENTICATED: { status: 401, title: 'Unauthorized' },
  GH_SIGNIN_FAILED: { status: 401, title: 'Unauthorized' },
  GH_FORBIDDEN: { status: 403, title: 'Forbidden' },
  GH_REAUTHENTICATION_REQUIRED: { status: 403, title: 'Forbidden' },
  GH_NOT_A_MEMBER: { status: 403, title: 'Forbidden' },
  GH_INVITATION_EMAIL_MISMATCH: { status: 403, title: 'Forbidden' },
  GH_VALIDATION_FAILED: { status: 400, title: 'Bad Request' },
  GH_NOT_FOUND: { status: 404, title: 'Not Found' },
  GH_METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  GH_REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout' },
  GH_CONFLICT: { status: 409, title: 'Conflict' },
  GH_PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  GH_UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  GH_HEADERS_TOO_LARGE: { status: 431, title: 'Request Header Fields Too Large' },
  GH_RATE_LIMITED: { status: 429, title: 'Too Many Requests' },
  GH_LOCKED_OUT: { status: 429, title: 'Too Many Requests' },
  GH_INTERNAL: { status: 500, title: 'Internal Server Error' },
  GH_SMS_FAILED: { status: 502, title: 'Bad Gateway' },
  GH_EXTERNAL_PROVIDER_UNAVAILABLE: { status: 502, title: 'Bad Gateway' },
  GH_STORE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
  GH_REVOCATIONS_STALE: { status: 503, title: 'Service Unavailable' },
  GH_OVERLOADED: { status: 503, title: 'Service Unavailable' },
  GH_SHUTTING_DOWN: { status: 503, title: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type GatehouseErrorCode = keyof typeof ERROR_CODES;

/** Field name → messages, for 400s (`errors` in the problem body). */
export type FieldErrors = Record<string, string[]>;

/** An expected failure with a stable code; `extensions` become extra problem members. */
export class GatehouseError extends Error {
  readonly status: number;
  readonly title: string;
  /** The detail in English, as logs read it; `wording` gives it in the reader's language. */
  readonly detail?: string;
  /** The extra problem members; `errors` in English. */
  readonly extensions: Readonly<Record<string, unknown>>;
  /** The detail and field errors as the catalogues word them: each host writes them in the request's language. */
  readonly wording: ProblemWording;
  /** When the caller may try again (a 429): every host sends it as `Retry-After`. */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: GatehouseErrorCode,
    detail?: Wording,
    extensions: Readonly<Record<string, unknown>> & { readonly errors?: WordedFieldErrors } = {},
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    const english = detail === undefined ? undefined : inEnglish(detail);
    super(english ?? ERROR_CODES[code].title, options);
    this.name = 'GatehouseError';
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
    if (english !== undefined) this.detail = english;
    const { errors } = extensions;
    this.extensions = errors === undefined ? extensions : { ...extensions, errors: wordedFieldErrors(errors, en) };
    this.wording = { ...(detail === undefined ? {} : { detail }), ...(errors === undefined ? {} : { errors }) };
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static validation(errors: WordedFieldErrors, detail: Wording = (m) => m.problemRequestNotValid): GatehouseError {
    return new GatehouseError('GH_VALIDATION_FAILED', detail, { errors });
  }

  static notFound(detail: Wording = (m) => m.problemNoSuchResource): GatehouseError {
    return new GatehouseError('GH_NOT_FOUND', detail);
  }
}

/**
 * An application's own refusal, answered as application/problem+json (RFC 9457) with its
 * status and code, the way Gatehouse answers its own: `throw new ProblemError(409, 'INVOICE_PAID',
 * 'A paid invoice cannot change.')`. Members of `extensions` join the body.
 */
export class ProblemError extends Error {
  constructor(
    /** An HTTP status from 400 to 599. */
    readonly status: number,
    /** A stable code of the application's, for clients to branch on. */
    readonly code: string,
    readonly detail?: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail ?? code);
    if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError(`A problem's status is from 400 to 599 (got ${status}).`);
    this.name = 'ProblemError';
  }

  /** Fastify's error handler reads it: the status holds even under an application's own handler. */
  get statusCode(): number {
    return this.status;
  }
}
