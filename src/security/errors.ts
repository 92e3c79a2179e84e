/**
 * Every error the service answers with, in one table: a stable code, the HTTP status and the
 * problem title. `docs/errors.md` lists the same codes (a test keeps the two in step). One mapper
 * (`http/problem.ts`) turns them into application/problem+json.
 */
export const ERROR_CODES = {
  GH_UNAUTHENTICATED: { status: 401, title: 'Unauthorized' },
  GH_SIGNIN_FAILED: { status: 401, title: 'Unauthorized' },
  GH_FORBIDDEN: { status: 403, title: 'Forbidden' },
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
} as const satisfies Record<string, { status: number; title: string }>;

export type GatehouseErrorCode = keyof typeof ERROR_CODES;

/** Field name → messages, for 400s (`errors` in the problem body). */
export type FieldErrors = Record<string, string[]>;

/** An expected failure with a stable code; `extensions` become extra problem members. */
export class GatehouseError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: GatehouseErrorCode,
    readonly detail?: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(detail ?? ERROR_CODES[code].title, options);
    this.name = 'GatehouseError';
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
  }

  static validation(errors: FieldErrors, detail = 'The request is not valid.'): GatehouseError {
    return new GatehouseError('GH_VALIDATION_FAILED', detail, { errors });
  }

  static notFound(detail = 'There is no such resource.'): GatehouseError {
    return new GatehouseError('GH_NOT_FOUND', detail);
  }
}
