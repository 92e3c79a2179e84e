import { declaredOrganizationRoles, GLOBAL_ROLES, refusedOrganizationRole } from '../organizations/organization-roles.ts';
import { type Argon2Parameters, DEFAULT_ARGON2, minimumMemoryKib, OWASP_ARGON2_ROWS } from '../identity/argon2-parameters.ts';
import { readFileSync } from 'node:fs';
import { TrustedDocuments } from '../graphql/trusted-documents.ts';
import { ConfigError } from './config-error.ts';
import { isReservedTablePrefix, isSystemSchema } from '../store/kysely/reserved-names.ts';
import { readTrustProxy, type TrustedProxies } from './trust-proxy.ts';
import { type Env, readBoolean, readDuration, readInteger, readList, readOptionalInteger, readString, readUrl } from './parse.ts';

export interface OidcProviderConfig {
  /** Lower-cased `<NAME>` of `OIDC_<NAME>_*`, as it appears in routes. */
  readonly name: string;
  readonly issuer: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly trustEmail: boolean;
  /** How long a sign-in waits on the provider, all its requests together (`OIDC_<NAME>_TIMEOUT_SECONDS`). */
  readonly timeoutMs: number;
}

/** The service's whole configuration, read from the environment once and validated. */
export interface Config {
  readonly production: boolean;
  readonly host: string;
  readonly port: number;
  readonly publicUrl: URL;
  readonly databaseUrl: string;
  /** Put before the names of Gatehouse's tables in the store opened on `databaseUrl` (`gh_`: `gh_users`); '' for none. */
  readonly databaseTablePrefix: string;
  /** PostgreSQL: the schema of Gatehouse's tables in that store; undefined for the connection's search path. */
  readonly databaseSchema: string | undefined;
  readonly redisUrl: string | undefined;
  readonly keyringSecret: string | undefined;
  readonly smtpUrl: URL | undefined;
  readonly smsWebhookUrl: URL | undefined;
  readonly oidcProviders: readonly OidcProviderConfig[];
  readonly accessTokenSeconds: number;
  readonly refreshTokenSeconds: number;
  readonly refreshReuseGraceSeconds: number;
  readonly cookieSeconds: number;
  readonly passwordMinLength: number;
  readonly requireConfirmedEmail: boolean;
  readonly lockoutMaxAttempts: number;
  readonly lockoutSeconds: number;
  /** How old a sign-in may be for a change that adds a way in (`REAUTH_MINUTES`, docs/reference/http.md#recent-sign-in). */
  readonly reauthSeconds: number;
  readonly rateLimitAccountPerMinute: number;
  readonly rateLimitIpPerMinute: number;
  readonly bodyLimitBytes: number;
  /** A request whose headers and body have not all arrived by then is cut off (408). */
  readonly requestTimeoutSeconds: number;
  /** How long a shutdown (SIGTERM, SIGINT) may drain in-flight work before the process exits anyway. */
  readonly shutdownGraceSeconds: number;
  /** `TRUST_PROXY`: whose `X-Forwarded-*` is believed, read from the right. */
  readonly trustProxy: TrustedProxies;
  readonly corsOrigins: readonly string[];
  /** `ORGANIZATIONS_SELF_SERVICE`: any confirmed user may create an organization (otherwise role `SuperAdmin` only). */
  readonly organizationsSelfService: boolean;
  /** The organization roles a member may hold: `OrgOwner`, `OrgAdmin`, `OrgMember`, then `ORGANIZATION_ROLES`. */
  readonly organizationRoles: readonly string[];
  readonly graphqlMaxDepth: number;
  readonly graphqlMaxAliases: number;
  readonly graphqlMaxCost: number;
  /** Active subscriptions one WebSocket may hold; one more gets an `error` message (docs/reference/graphql.md). */
  readonly graphqlMaxSubscriptionsPerSocket: number;
  /** Unsent bytes a WebSocket may hold; past them it is closed with 4408 (its client reads too slowly). */
  readonly graphqlMaxSocketBufferBytes: number;
  /** Open WebSockets of one user on this instance; one more is closed with 4429. */
  readonly graphqlMaxSocketsPerUser: number;
  /** Open WebSockets from one client address on this instance; one more is closed with 4429. */
  readonly graphqlMaxSocketsPerIp: number;
  /** `GRAPHQL_TRUSTED_DOCUMENTS`: the only documents that run (read and checked at start); undefined for any. */
  readonly graphqlTrustedDocuments: TrustedDocuments | undefined;
  readonly jwtIssuer: string;
  readonly jwtAudience: string;
  /**
   * The passkeys' relying-party id (`WEBAUTHN_RP_ID`): `PUBLIC_URL`'s host or a registrable
   * domain it belongs to. Null when it is unset and `PUBLIC_URL`'s host is an IP address, which
   * browsers refuse as an RP ID: passkeys are then off.
   */
  readonly webauthnRpId: string;
  /** Serve Prometheus metrics at `/metrics` (`METRICS`). */
  readonly metrics: boolean;
  /** A bearer token that lets a scraper read the metrics from anywhere (`METRICS_TOKEN`); a secret. */
  readonly metricsToken: string | undefined;
  /** Hashing threads; undefined for the usable cores (the cgroup's CPU quota included). */
  readonly hashThreads: number | undefined;
  /** Hashes waiting for a thread beyond which a new one is refused (503); undefined for 32 × the threads. */
  readonly hashQueueMax: number | undefined;
  /** The cost of new password hashes, at or above OWASP's floor; weaker stored hashes are replaced at sign-in. */
  readonly argon2: Argon2Parameters;
}

/** The longest password the service hashes, in code points (docs/reference/configuration.md). */
export const PASSWORD_MAX_LENGTH = 128;

/** Reads and validates the configuration; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const host = readString(env, 'HOST', '127.0.0.1');
  const port = readInteger(env, 'PORT', 3000, 0, 65535);
  const publicUrl = readUrl(env, 'PUBLIC_URL', ['http', 'https']) ?? new URL(`http://${hostForUrl(host)}:${port}`);
  const keyringSecret = readString(env, 'KEYRING_SECRET');
  const smtpUrl = readUrl(env, 'SMTP_URL', ['smtp', 'smtps'], { secret: true });
  if (production) requireProductionSettings(publicUrl, keyringSecret);
  if (keyringSecret !== undefined && Buffer.byteLength(keyringSecret) < 32) {
    throw new ConfigError('KEYRING_SECRET', 'at least 32 bytes of random text (e.g. `openssl rand -base64 32`)', null);
  }
  const databaseUrl = readDatabaseUrl(env);
  const trustProxy = readTrustProxy(env);
  const metrics = readBoolean(env, 'METRICS', false);
  const metricsToken = readMetricsToken(env);
  if (metrics) requireMetricsToken({ trustProxy, metricsToken });
  return {
    production,
    host,
    port,
    publicUrl,
    databaseUrl,
    databaseTablePrefix: readTablePrefix(env),
    databaseSchema: readSchema(env, databaseUrl),
    redisUrl: readUrl(env, 'REDIS_URL', ['redis', 'rediss'], { secret: true })?.toString(),
    keyringSecret,
    smtpUrl,
    smsWebhookUrl: readUrl(env, 'SMS_WEBHOOK_URL', ['http', 'https'], { secret: true }),
    oidcProviders: readOidcProviders(env, production),
    accessTokenSeconds: readDuration(env, 'ACCESS_TOKEN_MINUTES', 15) * 60,
    refreshTokenSeconds: readDuration(env, 'REFRESH_TOKEN_DAYS', 30) * 86_400,
    refreshReuseGraceSeconds: readDuration(env, 'REFRESH_REUSE_GRACE_SECONDS', 0, { allowZero: true }),
    cookieSeconds: readDuration(env, 'COOKIE_HOURS', 1) * 3_600,
    passwordMinLength: readInteger(env, 'PASSWORD_MIN_LENGTH', 8, 1, PASSWORD_MAX_LENGTH),
    requireConfirmedEmail: readBoolean(env, 'REQUIRE_CONFIRMED_EMAIL', true),
    lockoutMaxAttempts: readInteger(env, 'LOCKOUT_MAX_ATTEMPTS', 5, 1, 1000),
    lockoutSeconds: readDuration(env, 'LOCKOUT_MINUTES', 5) * 60,
    reauthSeconds: readDuration(env, 'REAUTH_MINUTES', 5) * 60,
    rateLimitAccountPerMinute: readInteger(env, 'RATE_LIMIT_ACCOUNT_PER_MINUTE', 10, 0, 1_000_000),
    rateLimitIpPerMinute: readInteger(env, 'RATE_LIMIT_IP_PER_MINUTE', 600, 0, 1_000_000),
    bodyLimitBytes: readInteger(env, 'BODY_LIMIT_BYTES', 1_048_576, 1, 1_073_741_824),
    requestTimeoutSeconds: readDuration(env, 'REQUEST_TIMEOUT_SECONDS', 30),
    shutdownGraceSeconds: readDuration(env, 'SHUTDOWN_GRACE_SECONDS', 10),
    trustProxy,
    corsOrigins: readCorsOrigins(env),
    organizationsSelfService: readBoolean(env, 'ORGANIZATIONS_SELF_SERVICE', false),
    organizationRoles: readOrganizationRoles(env),
    graphqlMaxDepth: readInteger(env, 'GRAPHQL_MAX_DEPTH', 10, 1, 1000),
    graphqlMaxAliases: readInteger(env, 'GRAPHQL_MAX_ALIASES', 15, 0, 10_000),
    graphqlMaxCost: readInteger(env, 'GRAPHQL_MAX_COST', 1000, 1, 100_000_000),
    graphqlMaxSubscriptionsPerSocket: readInteger(env, 'GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET', 100, 1, 100_000),
    graphqlMaxSocketBufferBytes: readInteger(env, 'GRAPHQL_MAX_SOCKET_BUFFER_BYTES', 1_048_576, 1024, 1_073_741_824),
    graphqlMaxSocketsPerUser: readInteger(env, 'GRAPHQL_MAX_SOCKETS_PER_USER', 20, 1, 1_000_000),
    graphqlMaxSocketsPerIp: readInteger(env, 'GRAPHQL_MAX_SOCKETS_PER_IP', 100, 1, 1_000_000),
    graphqlTrustedDocuments: readTrustedDocuments(env),
    jwtIssuer: readString(env, 'JWT_ISSUER', publicUrl.origin),
    jwtAudience: readString(env, 'JWT_AUDIENCE', 'gatehouse'),
    webauthnRpId: readWebAuthnRpId(env, publicUrl),
    metrics,
    metricsToken,
    hashThreads: readOptionalInteger(env, 'HASH_THREADS', 1, 1024),
    hashQueueMax: readOptionalInteger(env, 'HASH_QUEUE_MAX', 0, 1_000_000),
    argon2: readArgon2(env),
  };
}

/**
 * `GRAPHQL_TRUSTED_DOCUMENTS`: a JSON file `{"<sha256>": "<document>"}`, read once at start. A file
 * that cannot be read, is not JSON, or has a key that is not its document's SHA-256 stops the
 * start: trusted documents are a production safelist, and a broken one must not run open.
 */
const MANIFEST = 'a JSON file {"<sha256>": "<document>"}';

function readTrustedDocuments(env: Env): TrustedDocuments | undefined {
  const path = readString(env, 'GRAPHQL_TRUSTED_DOCUMENTS');
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('GRAPHQL_TRUSTED_DOCUMENTS', `${MANIFEST} that can be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`, path);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new ConfigError('GRAPHQL_TRUSTED_DOCUMENTS', `${MANIFEST} (it is not JSON)`, path);
  }
  try {
    return TrustedDocuments.from(manifest);
  } catch (error) {
    throw new ConfigError('GRAPHQL_TRUSTED_DOCUMENTS', `${MANIFEST} (${(error as Error).message})`, path);
  }
}

/** OWASP's rows as the message shows them: "47104 KiB with 1 pass, 19456 with 2, …". */
const OWASP_ROWS_TEXT = OWASP_ARGON2_ROWS.map((row, at) => `${row.memoryKib}${at === 0 ? ' KiB' : ''} with ${row.iterations}${at === 0 ? ' pass' : ''}`).join(', ');

/**
 * Any setting at or above one row of OWASP's table: memory can be traded for passes as the table
 * does, but a hash below every row is refused at start rather than written for years (decision 0054).
 */
function readArgon2(env: Env): Argon2Parameters {
  const iterations = readInteger(env, 'ARGON2_ITERATIONS', DEFAULT_ARGON2.iterations, 1, 1000);
  const memoryKib = readInteger(env, 'ARGON2_MEMORY_KIB', DEFAULT_ARGON2.memoryKib, 1, 4_194_304);
  const parallelism = readInteger(env, 'ARGON2_PARALLELISM', DEFAULT_ARGON2.parallelism, 1, 64);
  const minimum = minimumMemoryKib(iterations);
  if (memoryKib < minimum) {
    throw new ConfigError('ARGON2_MEMORY_KIB', `at least ${minimum} with ARGON2_ITERATIONS=${iterations} (OWASP's floor: ${OWASP_ROWS_TEXT} or more)`, String(memoryKib));
  }
  return { memoryKib, iterations, parallelism };
}

/**
 * `WEBAUTHN_RP_ID`: browsers accept an RP ID that is the page's host or a registrable domain
 * it belongs to (`example.com` for `login.example.com`), never an IP address. Unset, it is
 * `PUBLIC_URL`'s host, even an IP address (the default `http://127.0.0.1:3000`): clients that are
 * not browsers can still use passkeys there, and the start warns that browsers cannot.
 */
function readWebAuthnRpId(env: Env, publicUrl: URL): string {
  const host = publicUrl.hostname.toLowerCase();
  const value = readString(env, 'WEBAUTHN_RP_ID');
  if (value === undefined) return host;
  const rpId = value.toLowerCase();
  if (isIpAddress(rpId) || isIpAddress(host)) {
    throw new ConfigError('WEBAUTHN_RP_ID', 'a host name, not an IP address (browsers refuse IP addresses as passkey relying parties; use localhost in development)', value);
  }
  const suffixOfHost = rpId === host || (host.endsWith(`.${rpId}`) && rpId.includes('.'));
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId) || !suffixOfHost) {
    throw new ConfigError('WEBAUTHN_RP_ID', `PUBLIC_URL's host (${host}) or a registrable domain it belongs to`, value);
  }
  return rpId;
}

/** An IPv4 address, or an IPv6 one (bracketed as URL hosts write it, or bare). */
export function isIpAddress(host: string): boolean {
  return /^\[.*\]$/.test(host) || host.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** `SMTP_URL` is required in production only where mail is sent: see `requireMailInProduction`. */
function requireProductionSettings(publicUrl: URL, keyringSecret: string | undefined): void {
  if (publicUrl.protocol !== 'https:') throw new ConfigError('PUBLIC_URL', 'an https URL in production', publicUrl.href);
  if (keyringSecret === undefined) throw new ConfigError('KEYRING_SECRET', 'set in production', null);
}

/**
 * Production mail goes through `SMTP_URL`: an application that signs people in with passwords
 * (cookies or Gatehouse's tokens) sends confirmation, reset and lockout mail, and cannot start
 * without it. One that only accepts another issuer's tokens or API keys sends none.
 */
export function requireMailInProduction(config: Config, sendsMail: boolean): void {
  if (config.production && sendsMail && config.smtpUrl === undefined) {
    throw new ConfigError('SMTP_URL', 'set in production (smtp://user:pass@host:port)', null);
  }
}

/**
 * Behind a trusted proxy every request may reach the service from loopback, which then proves
 * nothing: metrics are served only to the bearer of `METRICS_TOKEN` (decision 0057).
 */
export function requireMetricsToken(config: Pick<Config, 'trustProxy' | 'metricsToken'>): void {
  if (config.trustProxy !== false && config.metricsToken === undefined) {
    throw new ConfigError('METRICS_TOKEN', 'set when metrics are on and TRUST_PROXY trusts a proxy (behind a proxy every caller may look local)', null);
  }
}

/** Sent as `Authorization: Bearer <token>`: header-safe characters only. The value never appears in a message. */
function readMetricsToken(env: Env): string | undefined {
  const value = readString(env, 'METRICS_TOKEN');
  if (value === undefined) return undefined;
  // One character repeated (`aaaa…`) passes the length but is guessed first.
  if (Buffer.byteLength(value) < 32 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(value) || /^(.)\1*$/.test(value)) {
    throw new ConfigError('METRICS_TOKEN', 'at least 32 characters of letters, digits and -._~+/, not one character repeated (e.g. `openssl rand -base64 32`)', null);
  }
  return value;
}

function readDatabaseUrl(env: Env): string {
  const value = readString(env, 'DATABASE_URL', 'sqlite:./data/gatehouse.db');
  if (/^sqlite:.+/.test(value) || /^postgres(ql)?:\/\/.+/.test(value)) return value;
  // Only the scheme is shown: the rest may hold a password.
  throw new ConfigError('DATABASE_URL', '`sqlite:<path>` or `postgres://…`', value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:).*$/s, '$1…'));
}

/** Lower-case letters, digits and `_`, from a letter: the same in SQLite and unquoted PostgreSQL. */
const LOWER_CASE_NAME = /^[a-z][a-z0-9_]*$/;

/** At most 20 characters: the longest constraint name stays within PostgreSQL's 63 bytes. */
function readTablePrefix(env: Env): string {
  const value = readString(env, 'DATABASE_TABLE_PREFIX', '');
  if (value === '' || (value.length <= 20 && LOWER_CASE_NAME.test(value) && !isReservedTablePrefix(value))) return value;
  throw new ConfigError('DATABASE_TABLE_PREFIX', 'lower-case letters, digits and "_", starting with a letter but not "pg_" or "sqlite_", at most 20 characters (e.g. gh_)', value);
}

function readSchema(env: Env, databaseUrl: string): string | undefined {
  const value = readString(env, 'DATABASE_SCHEMA');
  if (value === undefined) return undefined;
  if (databaseUrl.startsWith('sqlite:')) throw new ConfigError('DATABASE_SCHEMA', 'unset with an SQLite database (use DATABASE_TABLE_PREFIX)', value);
  if (value.length <= 63 && LOWER_CASE_NAME.test(value) && !isSystemSchema(value)) return value;
  throw new ConfigError('DATABASE_SCHEMA', 'lower-case letters, digits and "_", starting with a letter, not a system schema ("pg_…", information_schema), at most 63 characters (e.g. gatehouse)', value);
}

function readCorsOrigins(env: Env): string[] {
  return readList(env, 'CORS_ORIGINS').map((origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError('CORS_ORIGINS', 'a comma-separated list of origins like https://app.example.com', origin);
    }
    if (url.origin === 'null' || url.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError('CORS_ORIGINS', 'a comma-separated list of origins like https://app.example.com', origin);
    }
    return url.origin;
  });
}

/** `ORGANIZATION_ROLES`: names trimmed; a malformed one, or a global role's, stops the start. */
function readOrganizationRoles(env: Env): readonly string[] {
  const extra = readList(env, 'ORGANIZATION_ROLES');
  for (const name of extra) {
    const refused = refusedOrganizationRole(name);
    if (refused === 'malformed') {
      throw new ConfigError('ORGANIZATION_ROLES', 'comma-separated role names, each a letter then up to 63 letters, digits, "_" or "-" (e.g. Billing,Support)', name);
    }
    if (refused === 'global') {
      throw new ConfigError('ORGANIZATION_ROLES', `free of the global roles ${GLOBAL_ROLES.join(' and ')}: an organization role must never open a global policy`, name);
    }
  }
  return declaredOrganizationRoles(extra);
}

function readOidcProviders(env: Env, production: boolean): OidcProviderConfig[] {
  const names = new Set<string>();
  for (const key of Object.keys(env)) {
    const match = /^OIDC_([A-Z0-9]+)_ISSUER$/.exec(key);
    if (match) names.add(match[1]!);
  }
  return [...names].sort().map((name) => {
    const prefix = `OIDC_${name}_`;
    const issuer = readUrl(env, `${prefix}ISSUER`, production ? ['https'] : ['https', 'http'])!;
    const clientId = readString(env, `${prefix}CLIENT_ID`);
    const clientSecret = readString(env, `${prefix}CLIENT_SECRET`);
    if (!clientId) throw new ConfigError(`${prefix}CLIENT_ID`, `set when ${prefix}ISSUER is`, null);
    if (!clientSecret) throw new ConfigError(`${prefix}CLIENT_SECRET`, `set when ${prefix}ISSUER is`, null);
    return {
      name: name.toLowerCase(),
      issuer,
      clientId,
      clientSecret,
      trustEmail: readBoolean(env, `${prefix}TRUST_EMAIL`, false),
      timeoutMs: Math.round(readDuration(env, `${prefix}TIMEOUT_SECONDS`, 5) * 1000),
    };
  });
}
