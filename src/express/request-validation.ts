import type { TSchema } from '@sinclair/typebox';
import type { Request, RequestHandler } from 'express';
import { partValidator } from '../endpoints/body-validation.ts';
import { GatehouseError } from '../security/errors.ts';

/** The schemas of a route's parts, checked by `validate`. */
export interface RequestSchemas {
  readonly params?: TSchema;
  readonly body?: TSchema;
  readonly query?: TSchema;
}

/** A route handler that checks the request's parts in Fastify's order (path, body, query), each compiled once. */
export function requestValidation({ params, body, query }: RequestSchemas): RequestHandler {
  const checks = [
    params && { read: (request: Request) => request.params, check: partValidator(params, 'ROUTE', 'express', 'params') },
    body && { read: (request: Request) => request.body, check: partValidator(body, 'ROUTE', 'express', 'body') },
    query && { read: (request: Request) => request.query, check: partValidator(query, 'ROUTE', 'express', 'querystring') },
  ].filter((check) => check !== undefined);
  return (request, _response, next) => {
    for (const { read, check } of checks) {
      const errors = check(read(request));
      if (errors !== null) return next(GatehouseError.validation(errors));
    }
    next();
  };
}
