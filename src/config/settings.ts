import { ConfigError } from './config-error.ts';
import { closestName, type OptionNames } from './option-names.ts';
import { type Config, loadConfig } from './config.ts';

/** One external OpenID Connect provider (the `OIDC_<NAME>_*` variables). */
export interface OidcProviderSettings {
  readonly issuer: string | URL;
  readonly clientId: string;
  readonly clientSecret: string;
  /** A verified e-mail from this provider may link to an existing confirmed account. @default false */
  readonly trustEmail?: boolean;
  /** How long a sign-in waits on the provider before it answers 502, in seconds. @default 5 */
  readonly timeoutSeconds?: number;
}

/**
 * Gatehouse's settings given in code: the environment variables of the reference service, by
 * camel-cased name (`ACCESS_TOKEN_MINUTES` is `accessTokenMinutes`), validated by the same rules
 * with the same defaults. A bad value throws a `ConfigError` naming the setting.
 */
export interface GatehouseSettings {
  /** `NODE_ENV=production`: Secure `__Host-` cookies, no GraphiQL or introspection, https required. @default false */
  readonly production?: boolean;
  /** Absolute base for links in mail, OAuth redirect URIs and the same-origin check. @default http://127.0.0.1:3000 */
  readonly publicUrl?: string | URL;
  /** `sqlite:<path>` or `postgres://…`, when no `store` is given. @default sqlite:./data/gatehouse.db */
  readonly databaseUrl?: string;
  /** Put before the names of Gatehouse's tables in the store opened on `databaseUrl` (`gh_`: `gh_users`); the plugin's `tablePrefix` wins. */
  readonly databaseTablePrefix?: string;
  /** PostgreSQL: the schema of Gatehouse's tables in that store, created by its migration; the plugin's `schema` wins. */
  readonly databaseSchema?: string;
  /** Shares revocations, rate-limit counters and subscription events across instances at once. */
  readonly redisUrl?: string;
  /** Encrypts the key ring at rest; at least 32 bytes; required in production. */
  readonly keyringSecret?: string;
  /**
   * `smtp://user:pass@host:port`; unset outside production: mail goes to the dev outbox. Required
   * in production while cookies or Gatehouse's tokens are on (they send mail).
   */
  readonly smtpUrl?: string;
  /** SMS codes are POSTed there as JSON `{to, text}`. */
  readonly smsWebhookUrl?: string;
  /** External providers by name (lower-case letters and digits, as they appear in routes). */
  readonly oidc?: Readonly<Record<string, OidcProviderSettings>>;
  /** @default 15 */
  readonly accessTokenMinutes?: number;
  /** @default 30 */
  readonly refreshTokenDays?: number;
  /** @default 0 */
  readonly refreshReuseGraceSeconds?: number;
  /** Cookie sessions' sliding lifetime. @default 1 */
  readonly cookieHours?: number;
  /** @default 8 */
  readonly passwordMinLength?: number;
  /** @default true */
  readonly requireConfirmedEmail?: boolean;
  /** @default 5 */
  readonly lockoutMaxAttempts?: number;
  /** @default 5 */
  readonly lockoutMinutes?: number;
  /** How old a sign-in may be to add a passkey or an external login, turn two-factor off or replace the authenticator. @default 5 */
  readonly reauthMinutes?: number;
  /** Sign-in and account requests per account and IP per minute; 0 turns it off. @default 10 */
  readonly rateLimitAccountPerMinute?: number;
  /** The same per IP. @default 600 */
  readonly rateLimitIpPerMinute?: number;
  /** @default 1048576 */
  readonly bodyLimitBytes?: number;
  /** @default 30 */
  readonly requestTimeoutSeconds?: number;
  /** How long `closeOnSignals` lets a shutdown drain before the process exits anyway. @default 10 */
  readonly shutdownGraceSeconds?: number;
  /**
   * Whose `X-Forwarded-*` is believed, the client's address read from the right: `false`, the
   * number of proxies in front of the service (`true` is 1), or the proxies' addresses and CIDRs
   * (`['10.0.0.0/8', 'loopback']`). @default false
   */
  readonly trustProxy?: boolean | number | readonly string[];
  /** Origins allowed to call the API from a browser, with credentials. */
  readonly corsOrigins?: readonly string[];
  /** Any confirmed user may create an organization; otherwise role `SuperAdmin` only. @default false */
  readonly organizationsSelfService?: boolean;
  /** Organization roles beside `OrgOwner`, `OrgAdmin` and `OrgMember`; never `Admin` or `SuperAdmin`. @default none */
  readonly organizationRoles?: readonly string[];
  /** @default 10 */
  readonly graphqlMaxDepth?: number;
  /** @default 15 */
  readonly graphqlMaxAliases?: number;
  /** @default 1000 */
  readonly graphqlMaxCost?: number;
  /** @default 100 */
  readonly graphqlMaxSubscriptionsPerSocket?: number;
  /** Unsent bytes a WebSocket may hold before it is closed with 4408. @default 1048576 */
  readonly graphqlMaxSocketBufferBytes?: number;
  /** Open WebSockets of one user, per instance; one more is closed with 4429. @default 20 */
  readonly graphqlMaxSocketsPerUser?: number;
  /** Open WebSockets from one client address, per instance; one more is closed with 4429. @default 100 */
  readonly graphqlMaxSocketsPerIp?: number;
  /** A JSON file `{"<sha256>": "<document>"}`: only those GraphQL documents run (production safelisting). @default any document */
  readonly graphqlTrustedDocuments?: string;
  /** `iss` of issued tokens. @default publicUrl's origin */
  readonly jwtIssuer?: string;
  /** `aud` of issued tokens. @default gatehouse */
  readonly jwtAudience?: string;
  /**
   * The passkeys' relying-party id: `publicUrl`'s host or a registrable domain it belongs to,
   * never an IP address. @default publicUrl's host (an IP address there serves clients that are not browsers only)
   */
  readonly webauthnRpId?: string;
  /** Prometheus metrics at `/metrics`, for loopback callers and the bearer of `metricsToken` (the plugin's `metrics` option wins). @default false */
  readonly metrics?: boolean;
  /** Lets a scraper that sends `Authorization: Bearer <metricsToken>` read the metrics from anywhere, and is then the only way in; required with `trustProxy`. At least 32 random characters. */
  readonly metricsToken?: string;
  /** Password-hashing threads. @default the usable cores, the cgroup's CPU quota included */
  readonly hashThreads?: number;
  /** Hashes waiting for a thread beyond which a sign-in, registration or password change is answered 503 at once. @default 32 × hashThreads */
  readonly hashQueueMax?: number;
  /** Argon2id memory of new hashes, in KiB; with `argon2Iterations`, at or above a row of OWASP's table. @default 19456 */
  readonly argon2MemoryKib?: number;
  /** Argon2id passes. @default 2 */
  readonly argon2Iterations?: number;
  /** Argon2id lanes. @default 1 */
  readonly argon2Parallelism?: number;
}

/** Every setting's name: a misspelt one is refused at start (JavaScript callers have no compiler to catch it). */
export const SETTING_NAMES = [
  'production', 'publicUrl', 'databaseUrl', 'databaseTablePrefix', 'databaseSchema', 'redisUrl', 'keyringSecret', 'smtpUrl', 'smsWebhookUrl', 'oidc',
  'accessTokenMinutes', 'refreshTokenDays', 'refreshReuseGraceSeconds', 'cookieHours', 'passwordMinLength',
  'requireConfirmedEmail', 'lockoutMaxAttempts', 'lockoutMinutes', 'reauthMinutes', 'rateLimitAccountPerMinute', 'rateLimitIpPerMinute',
  'bodyLimitBytes', 'requestTimeoutSeconds', 'shutdownGraceSeconds', 'trustProxy', 'corsOrigins', 'organizationsSelfService', 'organizationRoles', 'graphqlMaxDepth', 'graphqlMaxAliases',
  'graphqlMaxCost', 'graphqlMaxSubscriptionsPerSocket', 'graphqlMaxSocketBufferBytes', 'graphqlMaxSocketsPerUser', 'graphqlMaxSocketsPerIp', 'graphqlTrustedDocuments',
  'jwtIssuer', 'jwtAudience', 'webauthnRpId', 'metrics', 'metricsToken',
  'hashThreads', 'hashQueueMax', 'argon2MemoryKib', 'argon2Iterations', 'argon2Parallelism',
] as const satisfies readonly (keyof GatehouseSettings)[];

// Fails to compile when a setting is added to the interface and not to the list.
type Unlisted = Exclude<keyof GatehouseSettings, (typeof SETTING_NAMES)[number]>;
const allListed: [Unlisted] extends [never] ? true : Unlisted = true;
void allListed;

const OIDC_PROVIDER_SETTINGS = {
  issuer: true, clientId: true, clientSecret: true, trustEmail: true, timeoutSeconds: true,
} as const satisfies OptionNames<OidcProviderSettings>;

/** ` ("closest")` when a known name is close to `name`, else the list of known names. */
function suggestion(name: string, known: readonly string[]): string {
  const closest = closestName(name, known);
  return closest === undefined ? ` (${known.join(', ')})` : `; did you mean "${closest}"?`;
}

/** The environment variable of a plain setting: `accessTokenMinutes` → `ACCESS_TOKEN_MINUTES`. */
export function variableOf(setting: string): string {
  return setting.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
}

/** The setting of an environment variable, for error messages: `OIDC_ACME_ISSUER` → `oidc.acme.issuer`. */
function settingOf(variable: string): string {
  if (!/^[A-Z0-9_]+$/.test(variable)) return variable;
  if (variable === 'NODE_ENV') return 'production';
  const oidc = /^OIDC_([A-Z0-9]+)_(.+)$/.exec(variable);
  const camel = (text: string) => text.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return oidc ? `oidc.${oidc[1]!.toLowerCase()}.${camel(oidc[2]!)}` : camel(variable);
}

/** The settings as the environment variables they stand for. */
export function settingsToEnv(settings: GatehouseSettings): Record<string, string> {
  const env: Record<string, string> = {};
  const known = new Set<string>(SETTING_NAMES);
  for (const [setting, value] of Object.entries(settings)) {
    if (!known.has(setting)) throw new ConfigError(setting, `one of Gatehouse's settings${suggestion(setting, SETTING_NAMES)}`, null);
    if (value === undefined || setting === 'oidc') continue;
    if (setting === 'production') env.NODE_ENV = value ? 'production' : 'development';
    else env[variableOf(setting)] = Array.isArray(value) ? value.join(',') : String(value);
  }
  for (const [name, provider] of Object.entries(settings.oidc ?? {})) {
    if (!/^[a-z0-9]+$/.test(name)) throw new ConfigError(`oidc.${name}`, 'named with lower-case letters and digits', null);
    const unknown = Object.keys(provider).find((key) => !Object.hasOwn(OIDC_PROVIDER_SETTINGS, key));
    if (unknown !== undefined) throw new ConfigError(`oidc.${name}.${unknown}`, `one of a provider's settings${suggestion(unknown, Object.keys(OIDC_PROVIDER_SETTINGS))}`, null);
    const prefix = `OIDC_${name.toUpperCase()}_`;
    env[`${prefix}ISSUER`] = String(provider.issuer);
    env[`${prefix}CLIENT_ID`] = provider.clientId;
    env[`${prefix}CLIENT_SECRET`] = provider.clientSecret;
    if (provider.trustEmail !== undefined) env[`${prefix}TRUST_EMAIL`] = String(provider.trustEmail);
    if (provider.timeoutSeconds !== undefined) env[`${prefix}TIMEOUT_SECONDS`] = String(provider.timeoutSeconds);
  }
  return env;
}

/** Validates settings given in code into the configuration; errors name the setting, not the variable. */
export function configFromSettings(settings: GatehouseSettings = {}): Config {
  try {
    return loadConfig(settingsToEnv(settings));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const setting = settingOf(error.variable);
    const renamed = new ConfigError(setting, '', null);
    renamed.message = error.message.replace(error.variable, setting);
    throw renamed;
  }
}
