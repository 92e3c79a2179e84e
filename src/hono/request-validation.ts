import type { Static, TSchema } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { Context, Env, MiddlewareHandler } from 'hono';
import { partValidator } from '../endpoints/body-validation.ts';
import { bodyOf, rawBody } from '../endpoints/web-exchange.ts';
import { GatehouseError } from '../security/errors.ts';

/** The schemas of a route's parts, checked by `validate`: Hono's names for them. */
export interface RequestSchemas {
  readonly param?: TSchema;
  readonly json?: TSchema;
  readonly query?: TSchema;
}

/** What `c.req.valid(…)` gives for each part a route checks. */
export type ValidatedInput<Schemas extends RequestSchemas> = {
  out: { [Part in keyof Schemas as Schemas[Part] extends TSchema ? Part : never]: Schemas[Part] extends TSchema ? Static<Schemas[Part]> : never };
};

type Part = 'param' | 'json' | 'query';

/**
 * A route's middleware that reads the body with the rules of Gatehouse's own endpoints (raw bytes
 * up to `limit`, then 413; JSON only, 415; bad or hostile JSON, 400) and checks the parts in
 * Fastify's order (path, body, query), each schema compiled once. The checked values go to
 * `c.req.valid(part)`; an invalid request is thrown as 400 for `onError`.
 */
export function requestValidation<Schemas extends RequestSchemas>(schemas: Schemas, limit: number): MiddlewareHandler<Env, string, ValidatedInput<Schemas>> {
  const checks = (['param', 'json', 'query'] as const)
    .filter((part) => schemas[part] !== undefined)
    .map((part) => ({ part, check: partValidator(schemas[part]!, 'ROUTE', 'hono', part === 'param' ? 'params' : part === 'json' ? 'body' : 'querystring') }));
  return async (c, next) => {
    for (const { part, check } of checks) {
      const value = await readPart(c, part, limit);
      const errors = check(value);
      if (errors !== null) throw GatehouseError.validation(errors);
      c.req.addValidatedData(part, value ?? {});
    }
    await next();
  };
}

async function readPart(c: Context, part: Part, limit: number): Promise<unknown> {
  const request = c.req;
  if (part === 'param') return { ...request.param() };
  if (part === 'query') return Object.fromEntries(Object.entries(request.queries()).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
  // On Node (`@hono/node-server`), from Node's request: the Web request's stream over it costs more.
  const node = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const read = await rawBody(bodyOf(request.raw, node === undefined ? {} : { node }), limit, false);
  if ('error' in read) throw read.error;
  return read.value;
}
