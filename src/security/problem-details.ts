import { ERROR_CODES, type GatehouseErrorCode } from './errors.ts';

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

/**
 * The problem body of an error code: its type, title and status from the one table, its code, and
 * what the caller adds. Every transport that answers in problem+json builds its body here.
 */
export function problem(code: GatehouseErrorCode, detail?: string, extensions: Record<string, unknown> = {}): ProblemBody {
  const { status, title } = ERROR_CODES[code];
  return { type: problemType(code), title, status, ...(detail === undefined ? {} : { detail }), ...extensions, code };
}
