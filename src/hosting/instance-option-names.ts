/**
 * The names of Gatehouse's options and of each options object inside them, on every host, checked
 * before anything opens: a misspelt feature (`cookie: false`) would otherwise leave cookie sign-in
 * and registration on in an API meant to take tokens only.
 */
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import { BUILT_IN_MAIL_TEMPLATES, type MailOptions } from '../identity/mail-templates.ts';
import type { LanguageOptions } from '../i18n/catalogue.ts';
import { DEFAULT_RENDERERS, type PageOptions } from '../pages/rendering.ts';
import type { GatehouseFeatures, GatehouseInstanceOptions, MetricsOptions } from './gatehouse-options.ts';

const INSTANCE_OPTIONS = {
  settings: true, config: true, store: true, tablePrefix: true, schema: true, migrations: true, migrate: true, features: true,
  policies: true, handlers: true, fallbackPolicy: true, defaultPolicy: true, schemes: true, defaultScheme: true,
  forwardDefaultSelector: true, prefix: true, pages: true, mails: true, i18n: true, metrics: true, clock: true, onLockout: true,
} as const satisfies OptionNames<GatehouseInstanceOptions>;

const FEATURES = {
  cookies: true, tokens: true, apiKeys: true, externalLogins: true, admin: true, twoFactor: true, passkeys: true, sessions: true, organizations: true,
} as const satisfies OptionNames<GatehouseFeatures>;

const PAGE_OPTIONS = {
  productName: true, titleTemplate: true, stylesheet: true, builtInStyles: true, logo: true, accentColor: true, renderers: true, layout: true, locate: true,
} as const satisfies OptionNames<PageOptions>;

/** One entry a page, from the built-in renderers (which name every page). */
const PAGE_NAMES: Readonly<Record<string, true>> = Object.fromEntries(Object.keys(DEFAULT_RENDERERS).map((name) => [name, true]));

const LANGUAGE_OPTIONS = { languages: true, defaultLanguage: true, fixedLanguage: true } as const satisfies OptionNames<LanguageOptions>;

const METRICS_OPTIONS = { path: true } as const satisfies OptionNames<MetricsOptions>;

const MAIL_OPTIONS = { templates: true } as const satisfies OptionNames<MailOptions>;

/** One entry a mail, from the built-in templates (which name every mail). */
const MAIL_NAMES: Readonly<Record<string, true>> = Object.fromEntries(Object.keys(BUILT_IN_MAIL_TEMPLATES).map((name) => [name, true]));

/**
 * Refuses an option, feature or page name Gatehouse does not know, and a feature that is not true
 * or false. `hostOptions` are the names a host's entry point adds (Fastify's `resultHandler`).
 */
export function checkInstanceOptions(options: GatehouseInstanceOptions, hostOptions: Readonly<Record<string, true>> = {}): void {
  refuseNonObject('gatehouse options', options);
  refuseUnknownOptions('gatehouse', options, { ...INSTANCE_OPTIONS, ...hostOptions });
  if (options.features !== undefined) checkFeatures(options.features);
  if (options.pages !== undefined) checkPages(options.pages);
  if (options.mails !== undefined) checkMails(options.mails);
  if (options.i18n !== undefined) {
    // The catalogues themselves are checked when they are built (i18n/catalogue.ts): missing keys, unknown keys, tags.
    refuseNonObject('i18n', options.i18n);
    refuseUnknownOptions('i18n', options.i18n, LANGUAGE_OPTIONS);
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

function checkMails(mails: MailOptions): void {
  refuseNonObject('mails', mails);
  refuseUnknownOptions('mails', mails, MAIL_OPTIONS);
  if (mails.templates !== undefined) {
    refuseNonObject('mails.templates', mails.templates);
    refuseUnknownOptions('mails.templates', mails.templates, MAIL_NAMES);
  }
}
