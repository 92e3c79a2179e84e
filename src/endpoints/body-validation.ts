import AjvCompiler from '@fastify/ajv-compiler';
import type { TSchema } from '@sinclair/typebox';
import type { WordedFieldErrors, Wording } from '../i18n/phrase.ts';

/**
 * How JSON bodies are validated on every host: as sent (`"5"` is not a number and `["a"]` not a
 * string, so a client cannot slip an array or a string past a check made on the other type), no
 * property dropped, every error reported, defaults filled in. The Fastify host validates with
 * these options (http/request-validation.ts), and so does the Web-standard handler: the same Ajv
 * gives the same 400s on both.
 */
export const BODY_VALIDATION = { removeAdditional: false, allErrors: true, useDefaults: true, coerceTypes: false } as const;

/** One failed check of a body, as Ajv reports it. */
export interface ValidationIssue {
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string | undefined;
}

/** A part's check: the errors by field, or null when it is valid (defaults filled in, text coerced). */
export type BodyValidator = (value: unknown) => WordedFieldErrors | null;

/** The parts of a request an endpoint's schemas describe, by Fastify's names for them. */
export type RequestPart = 'body' | 'params' | 'querystring';

const compilers = AjvCompiler();
const { coerceTypes: _asSent, ...TEXT_VALIDATION } = BODY_VALIDATION;

/** Compiles the check of a body schema, once, when the endpoint is mounted. */
export function bodyValidator(schema: TSchema, method: string, url: string): BodyValidator {
  return partValidator(schema, method, url, 'body');
}

/**
 * Compiles the check of one part's schema, once. A body is taken as sent; the path and the query
 * are text by nature and coerced as the Fastify host coerces them (`/users/7` with an `integer`
 * id is 7, a repeated query parameter may fill an array): http/request-validation.ts.
 */
export function partValidator(schema: TSchema, method: string, url: string, part: RequestPart): BodyValidator {
  type Validate = ((data: unknown) => boolean) & { errors?: ValidationIssue[] | null };
  const options = part === 'body' ? BODY_VALIDATION : { ...TEXT_VALIDATION, coerceTypes: 'array' as const };
  const build = compilers({}, { customOptions: options } as Parameters<typeof compilers>[1]);
  const validate = build({ schema, method, url, httpPart: part }) as Validate;
  // No body is checked as null, as Fastify checks it.
  return (value) => (validate(value ?? null) ? null : fieldErrors(validate.errors ?? [], part));
}

/**
 * The errors of a request's part by field, as the problem's `errors` lists them: a missing or
 * unknown property under its name, any other under its path, or the part's name at the root. A
 * missing or unknown property is worded in the reader's language; any other check keeps Ajv's
 * English words, which no catalogue has.
 */
export function fieldErrors(issues: readonly ValidationIssue[], part: string): WordedFieldErrors {
  const errors: Record<string, Wording[]> = {};
  for (const item of issues) {
    const { params } = item;
    const path = item.instancePath.split('/').filter(Boolean);
    const field = (params.missingProperty as string | undefined) ?? (params.additionalProperty as string | undefined) ?? (path.length > 0 ? path.join('.') : part);
    const message: Wording =
      params.additionalProperty !== undefined ? (m) => m.problemFieldNotAllowed : params.missingProperty !== undefined ? (m) => m.problemFieldRequired : sentence(item.message);
    (errors[field] ??= []).push(message);
  }
  return errors;
}

function sentence(message: string | undefined): string {
  const text = message ?? 'is not valid';
  return `The value ${text}.`;
}
