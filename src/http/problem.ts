import type { FastifyReply } from 'fastify';
import { ERROR_CODES, type GatehouseErrorCode } from '../security/errors.ts';

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

export function problem(code: GatehouseErrorCode, detail?: string, extensions: Record<string, unknown> = {}): ProblemBody {
  const { status, title } = ERROR_CODES[code];
  return { type: problemType(code), title, status, ...(detail === undefined ? {} : { detail }), ...extensions, code };
}

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type(PROBLEM_JSON).send(JSON.stringify(body));
}
