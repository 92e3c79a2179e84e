/**
 * The names of `register(gatehouse, …)`'s options: an instance's (hosting/instance-option-names.ts)
 * and Fastify's own, checked before anything opens.
 */
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import { checkInstanceOptions } from '../hosting/instance-option-names.ts';
import type { GatehouseOptions } from './app.ts';
import type { OpenApiOptions } from './plugins/openapi.ts';

/** Fastify's own options, and what Fastify's `register` itself reads from a plugin's options. */
const FASTIFY_OPTIONS = { resultHandler: true, openapi: true, logLevel: true, logSerializers: true } as const;

const OPENAPI_OPTIONS = { path: true, info: true, securitySchemes: true } as const satisfies OptionNames<OpenApiOptions>;
const OPENAPI_INFO = { title: true, version: true, description: true } as const satisfies OptionNames<NonNullable<OpenApiOptions['info']>>;

/** Refuses an option, feature or page name Gatehouse does not know, and a feature that is not true or false. */
export function checkGatehouseOptions(options: GatehouseOptions): void {
  checkInstanceOptions(options, FASTIFY_OPTIONS);
  if (options.openapi !== undefined && typeof options.openapi !== 'boolean') {
    refuseNonObject('openapi', options.openapi);
    refuseUnknownOptions('openapi', options.openapi, OPENAPI_OPTIONS);
    if (options.openapi.info !== undefined) refuseUnknownOptions('openapi.info', options.openapi.info, OPENAPI_INFO);
  }
}
