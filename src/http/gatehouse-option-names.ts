/**
 * The names of `register(gatehouse, …)`'s options and of each options object inside them,
 * checked before anything opens: a misspelt feature (`cookie: false`) would otherwise leave
 * cookie sign-in and registration on in an API meant to take tokens only.
 */
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import type { GatehouseFeatures, GatehouseOptions, MetricsOptions } from './app.ts';
import { DEFAULT_RENDERERS, type PageOptions } from '../pages/rendering.ts';
import type { OpenApiOptions } from './plugins/openapi.ts';

const GATEHOUSE_OPTIONS = {
  settings: true, config: true, store: true, tablePrefix: true, schema: true, migrations: true, migrate: true, features: true,
  policies: true, handlers: true, fallbackPolicy: true, defaultPolicy: true, schemes: true, defaultScheme: true,
  forwardDefaultSelector: true, prefix: true,
  resultHandler: true, pages: true, openapi: true, metrics: true, clock: true, onLockout: true,
} as const satisfies OptionNames<GatehouseOptions>;

/** What Fastify's `register` itself reads from a plugin's options. */
const REGISTRATION_OPTIONS = { logLevel: true, logSerializers: true } as const;

const FEATURES = {
  cookies: true, tokens: true, apiKeys: true, externalLogins: true, admin: true, twoFactor: true, passkeys: true, sessions: true,
} as const satisfies OptionNames<GatehouseFeatures>;

const PAGE_OPTIONS = {
  productName: true, titleTemplate: true, stylesheet: true, builtInStyles: true, renderers: true, layout: true,
} as const satisfies OptionNames<PageOptions>;

/** One entry a page, from the built-in renderers (which name every page). */
const PAGE_NAMES: Readonly<Record<string, true>> = Object.fromEntries(Object.keys(DEFAULT_RENDERERS).map((name) => [name, true]));

const OPENAPI_OPTIONS = { path: true, info: true, securitySchemes: true } as const satisfies OptionNames<OpenApiOptions>;
const OPENAPI_INFO = { title: true, version: true, description: true } as const satisfies OptionNames<NonNullable<OpenApiOptions['info']>>;
const METRICS_OPTIONS = { path: true } as const satisfies OptionNames<MetricsOptions>;

/** Refuses an option, feature or page name Gatehouse does not know, and a feature that is not true or false. */
export function checkGatehouseOptions(options: GatehouseOptions): void {
  refuseNonObject('gatehouse options', options);
  refuseUnknownOptions('gatehouse', options, { ...GATEHOUSE_OPTIONS, ...REGISTRATION_OPTIONS });
  if (options.features !== undefined) checkFeatures(options.features);
  if (options.pages !== undefined) checkPages(options.pages);
  if (options.openapi !== undefined && typeof options.openapi !== 'boolean') {
    refuseNonObject('openapi', options.openapi);
    refuseUnknownOptions('openapi', options.openapi, OPENAPI_OPTIONS);
    if (options.openapi.info !== undefined) refuseUnknownOptions('openapi.info', options.openapi.info, OPENAPI_INFO);
  }
  if (options.metrics !== undefined && typeof options.metrics !== 'boolean') {
    refuseNonObject('metrics', options.metrics);
    refuseUnknownOptions('metrics', options.metrics, METRICS_OPTIONS);
  }
}

function checkFeatures(features: GatehouseFeatures): void {
  refuseNonObject('features', features);
  refuseUnknownOptions('features', features, FEATURES);
  for (const [name, on] of Object.entries(features)) {
    // A string "false" is truthy: it would turn the feature on.
    if (on !== undefined && typeof on !== 'boolean') throw new Error(`features.${name} must be true or false (got ${JSON.stringify(on)}).`);
  }
}

function checkPages(pages: PageOptions): void {
  refuseNonObject('pages', pages);
  refuseUnknownOptions('pages', pages, PAGE_OPTIONS);
  if (pages.renderers !== undefined) {
    refuseNonObject('pages.renderers', pages.renderers);
    refuseUnknownOptions('pages.renderers', pages.renderers, PAGE_NAMES);
  }
}
