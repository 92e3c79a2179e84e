import type { Config } from '../config/config.ts';
import type { GatehouseSettings } from '../config/settings.ts';
import type { AccountLockoutOptions } from '../identity/lockout.ts';
import type { MailOptions } from '../identity/mail-templates.ts';
import type { LanguageOptions } from '../i18n/catalogue.ts';
import type { PageOptions } from '../pages/rendering.ts';
import type { Clock } from '../platform/clock.ts';
import type { AuthenticationHandler, ForwardDefaultSelector } from '../security/authentication/index.ts';
import type { AuthorizationHandler, AuthorizationPolicy } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { OwnedStore } from '../store/application-store.ts';
import type { ApplicationMigrations } from '../store/application-database.ts';

/** Which parts of Gatehouse an application turns on; all of them by default. */
export interface GatehouseFeatures {
  /** Cookie sign-in, its pages and the `Cookies` scheme. @default true */
  readonly cookies?: boolean;
  /** Access and refresh tokens (`/auth/token`, `/auth/refresh`, the JWKS) and the `Bearer` scheme. @default true */
  readonly tokens?: boolean;
  /** The `ApiKey` scheme (`X-Api-Key`). @default true */
  readonly apiKeys?: boolean;
  /** Sign-in with the OpenID providers of `settings.oidc`. @default true */
  readonly externalLogins?: boolean;
  /** The admin API (`/admin/*`, role `Admin`). @default true */
  readonly admin?: boolean;
  /** Two-factor sign-in and its account routes. @default true */
  readonly twoFactor?: boolean;
  /**
   * Passkeys (WebAuthn): sign-in with a passkey and the signed-in user's passkeys (docs/passkeys.md).
   * Needs `cookies` and the @simplewebauthn/server package. Browsers need a host name for
   * `WEBAUTHN_RP_ID` (by default `PUBLIC_URL`'s host: with an IP address there, only clients that
   * are not browsers can use them, as the start warns once).
   * @default false
   */
  readonly passkeys?: boolean;
  /**
   * "Where you are signed in": `/account/sessions` (the user's cookie sessions and refresh
   * families, each of which it can end), its part of the profile page, and, with `admin`,
   * `/admin/users/:id/sessions`. @default true
   */
  readonly sessions?: boolean;
  /**
   * Organizations (docs/organizations.md): `/orgs/*`, `/account/organizations`, invitations by
   * mail, their pages, and principals that carry the active organization (`org_id` and its
   * organization roles, only from a membership). @default false
   */
  readonly organizations?: boolean;
}

/**
 * What an application gives Gatehouse, whatever its host: settings, store, features, policies,
 * handlers and schemes. Each host's entry point takes these and its own (Fastify's `resultHandler`
 * and `openapi`).
 */
export interface GatehouseInstanceOptions {
  /** Settings in code; or `config` read from the environment with `loadConfig()`. */
  readonly settings?: GatehouseSettings;
  /** The configuration read by `loadConfig()` (the environment variables); beats `settings`. */
  readonly config?: Config;
  /** An open store (the application's, from `createStore`); else one is opened on `settings.databaseUrl` and closed with the app. */
  readonly store?: OwnedStore;
  /** The table prefix of the store the plugin opens (`'gh_'`: `gh_users`, …); a given `store` carries its own. @default settings' `databaseTablePrefix`, else '' */
  readonly tablePrefix?: string;
  /** PostgreSQL: the schema of the store the plugin opens, created by its migration; a given `store` carries its own. @default settings' `databaseSchema` */
  readonly schema?: string;
  /**
   * The application's own migrations, for the store the plugin opens (a given `store` carries
   * its own: `createStore(url, { migrations })`): run after Gatehouse's, on the same connections;
   * the application reaches its tables through `app.gatehouse.store.database`.
   */
  readonly migrations?: ApplicationMigrations;
  /** Run the store's migrations at start. @default true */
  readonly migrate?: boolean;
  readonly features?: GatehouseFeatures;
  /** The application's named policies (declare their names in `GatehousePolicies`). */
  readonly policies?: Readonly<Record<PolicyName, AuthorizationPolicy>>;
  /** The application's requirement handlers, beside Gatehouse's own. */
  readonly handlers?: readonly AuthorizationHandler[];
  /**
   * The policy of routes that say nothing: a name, a policy, or `null` for none (such routes are
   * open, yet read the caller's credentials). @default an authenticated user
   */
  readonly fallbackPolicy?: PolicyName | AuthorizationPolicy | null;
  /** The policy of an `authorize` entry that names neither policy nor roles. @default an authenticated user */
  readonly defaultPolicy?: PolicyName | AuthorizationPolicy;
  /** The application's own authentication schemes, beside (or, by name, instead of) Gatehouse's. */
  readonly schemes?: readonly AuthenticationHandler[];
  /** The scheme of routes that name none; @default by the request's shape: Bearer, then ApiKey, then Cookies */
  readonly defaultScheme?: string;
  /**
   * Chooses, per request and per socket, the scheme of routes that name none (ASP.NET's
   * `ForwardDefaultSelector`), from its headers, cookies, method, target and query; when it
   * answers undefined, `defaultScheme` (or the request's shape) decides. A name that is not
   * registered fails the request (500). @default none
   */
  readonly forwardDefaultSelector?: ForwardDefaultSelector;
  /**
   * Where the membership, token and page routes are mounted (`/auth/*`, `/account/*`,
   * `/admin/*`, `/signin-*`): `''` (the reference service's paths, the default) or a path such
   * as `/identity`. Links in mails, form actions, redirects and the refresh cookie's Path follow.
   */
  readonly prefix?: string;
  /** The pages' product name, title, stylesheet and renderers (`docs/pages.md`); the product name is the mails' too. */
  readonly pages?: PageOptions;
  /**
   * The application's templates of any mail, replacing the built-in ones (`docs/mails.md`). Each
   * is rendered once at start with sample variables, and every mail is checked before it leaves:
   * one that breaks a rule (a line break in the subject, a second link) stops the start.
   */
  readonly mails?: MailOptions;
  /**
   * The languages of the pages and the mails (`docs/pages.md`, "Languages"): catalogues of the
   * application's (a language of its own with every key, or keys of `en` or `de` to override), the
   * default language and a fixed one. A language added without every key stops the start.
   */
  readonly i18n?: LanguageOptions;
  /**
   * Prometheus metrics at `/metrics` (or `path`), for loopback callers and for the bearer of the
   * `METRICS_TOKEN` setting (docs/operations.md); `true` or an object turns them on. Needs the
   * prom-client package. @default the `METRICS` setting (off)
   */
  readonly metrics?: boolean | MetricsOptions;
  /** The clock of lifetimes, lockouts and time-based policies. @default the system clock */
  readonly clock?: Clock;
  /** Hears of each lockout instead of the default notice mail to the account's owner. */
  readonly onLockout?: AccountLockoutOptions['onLockout'];
}

export interface MetricsOptions {
  /** Where the metrics are served. @default '/metrics' */
  readonly path?: string;
}

/** Every feature is on unless the application turns it off, but passkeys, which it turns on. */
export const DEFAULT_FEATURES: Required<GatehouseFeatures> = {
  cookies: true,
  tokens: true,
  apiKeys: true,
  externalLogins: true,
  admin: true,
  twoFactor: true,
  passkeys: false,
  sessions: true,
  organizations: false,
};
