import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';
import { BODY_VALIDATION } from '../endpoints/body-validation.ts';

type ValidatorFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;

/** What every part of a request is validated with: no property dropped, every error reported, defaults filled in. */
const { coerceTypes: _asSent, ...commonOptions } = BODY_VALIDATION;

const validators = AjvCompiler();

/**
 * Request validation by part. A JSON body is taken as sent: `"5"` is not a number and `["a"]` not
 * a string, so a client cannot slip an array or a string past a check made on the other type.
 * The path, query string and headers are text by nature: `/projects/7` with an `integer` id is
 * coerced to 7, as Fastify users expect (and a repeated query parameter may fill an array).
 */
export const validatorsByPart: ValidatorFactory = (externalSchemas, ajvOptions) => {
  // Ajv's options, not JTD's (the union's other half, which knows none of these).
  const withCoercion = (coerceTypes: false | 'array') =>
    validators(externalSchemas, { ...ajvOptions, customOptions: { ...ajvOptions?.customOptions, ...commonOptions, coerceTypes } } as Parameters<typeof validators>[1]);
  const forBodies = withCoercion(false);
  const forText = withCoercion('array');
  return (route) => (route.httpPart === 'body' ? forBodies(route) : forText(route));
};
