/**
 * `@ValidBody(schema)`, `@ValidParams(schema)`, `@ValidQuery(schema)`: a handler's body, path
 * parameters and query, checked against TypeBox (JSON) schemas with the rules of Gatehouse's own
 * endpoints (every error named by field, 400 problem+json). The body is read when the handler is
 * called, after the guard: a caller without credentials gets 401, never 400, 413 or 415. A body a
 * platform's parser read already is checked as it is; otherwise it is read from Node's request
 * with the endpoints' body rules (`BODY_LIMIT_BYTES`, 413; JSON only, 415; hostile JSON, 400).
 */
import { createParamDecorator, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { TSchema } from '@sinclair/typebox';
import { partValidator } from '../endpoints/body-validation.ts';
import { nodeBody } from '../endpoints/node-request.ts';
import { rawBody } from '../endpoints/web-exchange.ts';
import { GatehouseError } from '../security/errors.ts';
import { nodeRequestOf, type PlatformRequest } from './nest-requests.ts';

/** Where the guard leaves the body limit for the handler's parameters. */
export const BODY_LIMIT = Symbol('gatehouse.bodyLimit');

interface ValidatedRequest extends PlatformRequest {
  readonly body?: unknown;
  readonly params?: Record<string, string>;
  readonly query?: Record<string, unknown>;
  readonly [BODY_LIMIT]?: number;
}

const DEFAULT_BODY_LIMIT = 1_048_576;

/** NestJS does not await a parameter's value; a pipe does. */
const SETTLED: PipeTransform = { transform: (value: unknown) => value };

function checked(schema: TSchema, part: 'params' | 'body' | 'querystring', value: unknown): unknown {
  const errors = partValidator(schema, 'ROUTE', 'nestjs', part)(value);
  if (errors !== null) throw GatehouseError.validation(errors);
  return value;
}

async function readBody(request: ValidatedRequest): Promise<unknown> {
  const node = nodeRequestOf(request);
  if (request.body !== undefined || node.readableEnded) return request.body;
  const read = await rawBody(nodeBody(node), request[BODY_LIMIT] ?? DEFAULT_BODY_LIMIT, false);
  if ('error' in read) throw read.error;
  return read.value;
}

const bodyParameter = createParamDecorator(async (schema: TSchema, context: ExecutionContext) =>
  checked(schema, 'body', await readBody(context.switchToHttp().getRequest<ValidatedRequest>())),
);
const paramsParameter = createParamDecorator((schema: TSchema, context: ExecutionContext) =>
  checked(schema, 'params', { ...context.switchToHttp().getRequest<ValidatedRequest>().params }),
);
const queryParameter = createParamDecorator((schema: TSchema, context: ExecutionContext) =>
  checked(schema, 'querystring', { ...context.switchToHttp().getRequest<ValidatedRequest>().query }),
);

/** The JSON body, read after the guard and checked against `schema`. */
export function ValidBody(schema: TSchema): ParameterDecorator {
  return bodyParameter(schema, SETTLED);
}

/** The path parameters, checked against `schema` (text coerced as on every host: an `integer` id is a number). */
export function ValidParams(schema: TSchema): ParameterDecorator {
  return paramsParameter(schema);
}

/** The query, checked against `schema`. */
export function ValidQuery(schema: TSchema): ParameterDecorator {
  return queryParameter(schema);
}
