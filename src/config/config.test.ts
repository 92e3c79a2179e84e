import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.ts';
import { configFromSettings } from './settings.ts';
import { loadConfig, requireMailInProduction } from './config.ts';
import type { Env } from './parse.ts';

const KEYRING_SECRET = 'a-keyring-secret-that-is-32-bytes-or-more';
const PRODUCTION: Env = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://auth.example.com',
  KEYRING_SECRET,
  SMTP_URL: 'smtp://mailer:mail-password@smtp.example.com:587',
};

/** The ConfigError that `env` causes; fails the test when the environment is accepted. */
function configError(env: Env): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults (docs/reference/configuration.md)', () => {
  const config = loadConfig({});

  it('listens on 127.0.0.1:3000', () => {
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(3000);
  });

  it('derives PUBLIC_URL from HOST and PORT', () => {
    expect(config.publicUrl.origin).toBe('http://127.0.0.1:3000');
    const custom = loadConfig({ HOST: '0.0.0.0', PORT: '8080' });
    expect(custom.publicUrl.origin).toBe('http://0.0.0.0:8080');
  });

  it('brackets an IPv6 HOST in the derived PUBLIC_URL', () => {
    expect(loadConfig({ HOST: '::1', PORT: '4000' }).publicUrl.origin).toBe('http://[::1]:4000');
  });

  it('uses the embedded SQLite database under ./data', () => {
    expect(config.databaseUrl).toBe('sqlite:./data/gatehouse.db');
  });

  it('is development, without Redis, key-ring secret, SMTP, SMS or OIDC providers', () => {
    expect(config.production).toBe(false);
    expect(config.redisUrl).toBeUndefined();
    expect(config.keyringSecret).toBeUndefined();
    expect(config.smtpUrl).toBeUndefined();
    expect(config.smsWebhookUrl).toBeUndefined();
    expect(config.oidcProviders).toEqual([]);
  });

  it('issues access tokens for 15 minutes, refresh tokens for 30 days, with no reuse grace', () => {
    expect(config.accessTokenSeconds).toBe(15 * 60);
    expect(config.refreshTokenSeconds).toBe(30 * 86_400);
    expect(config.refreshReuseGraceSeconds).toBe(0);
  });

  it('keeps cookies for 1 hour', () => {
    expect(config.cookieSeconds).toBe(3_600);
  });

  it('asks for passwords of at least 8 characters and a confirmed e-mail', () => {
    expect(config.passwordMinLength).toBe(8);
    expect(config.requireConfirmedEmail).toBe(true);
  });

  it('locks out for 5 minutes after 5 failed attempts', () => {
    expect(config.lockoutMaxAttempts).toBe(5);
    expect(config.lockoutSeconds).toBe(5 * 60);
  });

  it('limits 10 requests per account and 600 per IP a minute', () => {
    expect(config.rateLimitAccountPerMinute).toBe(10);
    expect(config.rateLimitIpPerMinute).toBe(600);
  });

  it('limits bodies to 1 MiB, does not trust proxies, and allows no CORS origin', () => {
    expect(config.bodyLimitBytes).toBe(1_048_576);
    expect(config.trustProxy).toBe(false);
    expect(config.corsOrigins).toEqual([]);
  });

  it('cuts off a request whose headers and body have not arrived after 30 seconds', () => {
    expect(config.requestTimeoutSeconds).toBe(30);
  });

  it('limits GraphQL documents to depth 10, 15 aliases and cost 1000', () => {
    expect(config.graphqlMaxDepth).toBe(10);
    expect(config.graphqlMaxAliases).toBe(15);
    expect(config.graphqlMaxCost).toBe(1000);
  });

  it('allows 100 active subscriptions per socket, 1 MiB unsent on one, 20 sockets per user and 100 per client address', () => {
    expect(config.graphqlMaxSubscriptionsPerSocket).toBe(100);
    expect(config.graphqlMaxSocketBufferBytes).toBe(1_048_576);
    expect(config.graphqlMaxSocketsPerUser).toBe(20);
    expect(config.graphqlMaxSocketsPerIp).toBe(100);
  });

  it('issues tokens with iss = PUBLIC_URL and aud = gatehouse', () => {
    expect(config.jwtIssuer).toBe('http://127.0.0.1:3000');
    expect(config.jwtAudience).toBe('gatehouse');
    expect(loadConfig({ PUBLIC_URL: 'https://auth.example.com' }).jwtIssuer).toBe('https://auth.example.com');
  });

  it('hashes with OWASP’s 19 MiB, 2 passes, 1 lane, on threads and a queue bound worked out at start', () => {
    expect(config.argon2).toEqual({ memoryKib: 19_456, iterations: 2, parallelism: 1 });
    expect(config.hashThreads).toBeUndefined();
    expect(config.hashQueueMax).toBeUndefined();
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '', ACCESS_TOKEN_MINUTES: '  ' }).port).toBe(3000);
    expect(loadConfig({ ACCESS_TOKEN_MINUTES: '  ' }).accessTokenSeconds).toBe(900);
  });
});

describe('loadConfig values', () => {
  it('reads HASH_THREADS from 1 and HASH_QUEUE_MAX from 0', () => {
    expect(loadConfig({ HASH_THREADS: '3', HASH_QUEUE_MAX: '0' })).toMatchObject({ hashThreads: 3, hashQueueMax: 0 });
  });

  it('accepts Argon2id parameters at or above any row of OWASP’s table', () => {
    expect(loadConfig({ ARGON2_MEMORY_KIB: '47104', ARGON2_ITERATIONS: '1' }).argon2).toEqual({ memoryKib: 47_104, iterations: 1, parallelism: 1 });
    expect(loadConfig({ ARGON2_MEMORY_KIB: '12288', ARGON2_ITERATIONS: '3' }).argon2.memoryKib).toBe(12_288);
    expect(loadConfig({ ARGON2_MEMORY_KIB: '7168', ARGON2_ITERATIONS: '8', ARGON2_PARALLELISM: '4' }).argon2).toEqual({ memoryKib: 7168, iterations: 8, parallelism: 4 });
    expect(loadConfig({ ARGON2_MEMORY_KIB: '65536' }).argon2).toEqual({ memoryKib: 65_536, iterations: 2, parallelism: 1 });
  });

  it('accepts decimals in durations: ACCESS_TOKEN_MINUTES=0.5 is 30 seconds', () => {
    expect(loadConfig({ ACCESS_TOKEN_MINUTES: '0.5' }).accessTokenSeconds).toBe(30);
  });

  it('accepts decimals in every duration', () => {
    const config = loadConfig({
      REFRESH_TOKEN_DAYS: '0.5',
      REFRESH_REUSE_GRACE_SECONDS: '2.5',
      COOKIE_HOURS: '0.25',
      LOCKOUT_MINUTES: '1.5',
      REQUEST_TIMEOUT_SECONDS: '0.5',
    });
    expect(config.refreshTokenSeconds).toBe(43_200);
    expect(config.refreshReuseGraceSeconds).toBe(2.5);
    expect(config.cookieSeconds).toBe(900);
    expect(config.lockoutSeconds).toBe(90);
    expect(config.requestTimeoutSeconds).toBe(0.5);
  });

  it('reads GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET from 1 up', () => {
    expect(loadConfig({ GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET: '1' }).graphqlMaxSubscriptionsPerSocket).toBe(1);
    expect(loadConfig({ GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET: '2500' }).graphqlMaxSubscriptionsPerSocket).toBe(2500);
  });

  it('allows REFRESH_REUSE_GRACE_SECONDS=0', () => {
    expect(loadConfig({ REFRESH_REUSE_GRACE_SECONDS: '0' }).refreshReuseGraceSeconds).toBe(0);
  });

  it('allows 0 to turn a rate limit off', () => {
    const config = loadConfig({ RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' });
    expect(config.rateLimitAccountPerMinute).toBe(0);
    expect(config.rateLimitIpPerMinute).toBe(0);
  });

  it('accepts a PostgreSQL DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db:5432/gatehouse' }).databaseUrl).toBe('postgres://app@db:5432/gatehouse');
    expect(loadConfig({ DATABASE_URL: 'postgresql://app@db/gatehouse' }).databaseUrl).toBe('postgresql://app@db/gatehouse');
  });

  it('reads CORS origins, comma-separated, allowing a trailing slash', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173/' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it('declares the organization roles: the built-in ones, then ORGANIZATION_ROLES trimmed, each once', () => {
    expect(loadConfig({}).organizationRoles).toEqual(['OrgOwner', 'OrgAdmin', 'OrgMember']);
    expect(loadConfig({ ORGANIZATION_ROLES: ' Billing, Support ,OrgAdmin,Billing' }).organizationRoles).toEqual(['OrgOwner', 'OrgAdmin', 'OrgMember', 'Billing', 'Support']);
    expect(loadConfig({}).organizationsSelfService).toBe(false);
    expect(loadConfig({ ORGANIZATIONS_SELF_SERVICE: 'true' }).organizationsSelfService).toBe(true);
  });

  it('refuses a global role as an organization role, naming it and saying why', () => {
    for (const role of ['Admin', 'SuperAdmin']) {
      const error = configError({ ORGANIZATION_ROLES: `Billing,${role}` });
      expect(error.variable).toBe('ORGANIZATION_ROLES');
      expect(error.message).toBe(
        `ORGANIZATION_ROLES must be free of the global roles Admin and SuperAdmin: an organization role must never open a global policy (got "${role}")`,
      );
    }
    // Case-sensitive, as roles are: another name.
    expect(loadConfig({ ORGANIZATION_ROLES: 'admin' }).organizationRoles).toContain('admin');
  });

  it('reads the organization settings given in code, and names the setting when one is refused', () => {
    expect(configFromSettings({ organizationsSelfService: true, organizationRoles: ['Billing'] })).toMatchObject({
      organizationsSelfService: true,
      organizationRoles: ['OrgOwner', 'OrgAdmin', 'OrgMember', 'Billing'],
    });
    expect(() => configFromSettings({ organizationRoles: ['Billing', 'SuperAdmin'] })).toThrow(/^organizationRoles must be free of the global roles/);
  });

  it('reads booleans', () => {
    expect(loadConfig({ REQUIRE_CONFIRMED_EMAIL: 'false' })).toMatchObject({ requireConfirmedEmail: false });
  });

  it('treats any NODE_ENV other than production as development', () => {
    const config = loadConfig({ NODE_ENV: 'staging', PUBLIC_URL: 'http://staging.example.com' });
    expect(config.production).toBe(false);
  });
});

describe('loadConfig refusals', () => {
  it.each<[string, Env]>([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['ACCESS_TOKEN_MINUTES', { ACCESS_TOKEN_MINUTES: '-1' }],
    ['ACCESS_TOKEN_MINUTES', { ACCESS_TOKEN_MINUTES: 'abc' }],
    ['ACCESS_TOKEN_MINUTES', { ACCESS_TOKEN_MINUTES: '0' }],
    ['ACCESS_TOKEN_MINUTES', { ACCESS_TOKEN_MINUTES: '1e3' }],
    ['REFRESH_TOKEN_DAYS', { REFRESH_TOKEN_DAYS: '0' }],
    ['REFRESH_REUSE_GRACE_SECONDS', { REFRESH_REUSE_GRACE_SECONDS: '-1' }],
    ['COOKIE_HOURS', { COOKIE_HOURS: 'one' }],
    ['REQUEST_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: '0' }],
    ['REQUEST_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: '-5' }],
    ['REQUEST_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: '30s' }],
    ['SHUTDOWN_GRACE_SECONDS', { SHUTDOWN_GRACE_SECONDS: '0' }],
    ['SHUTDOWN_GRACE_SECONDS', { SHUTDOWN_GRACE_SECONDS: '-1' }],
    ['SHUTDOWN_GRACE_SECONDS', { SHUTDOWN_GRACE_SECONDS: 'ten' }],
    ['PASSWORD_MIN_LENGTH', { PASSWORD_MIN_LENGTH: '0' }],
    ['PASSWORD_MIN_LENGTH', { PASSWORD_MIN_LENGTH: '129' }],
    ['REQUIRE_CONFIRMED_EMAIL', { REQUIRE_CONFIRMED_EMAIL: 'maybe' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['DATABASE_URL', { DATABASE_URL: 'sqlite:' }],
    ['REDIS_URL', { REDIS_URL: 'http://cache:6379' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://example.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'not a url' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example.com/path' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://ok.example.com,app.example.com' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example.com?x=1' }],
    ['ORGANIZATION_ROLES', { ORGANIZATION_ROLES: 'Billing,Support Desk' }],
    ['ORGANIZATION_ROLES', { ORGANIZATION_ROLES: 'team.lead' }],
    ['ORGANIZATION_ROLES', { ORGANIZATION_ROLES: '1stLine' }],
    ['ORGANIZATION_ROLES', { ORGANIZATION_ROLES: `R${'x'.repeat(64)}` }],
    ['ORGANIZATIONS_SELF_SERVICE', { ORGANIZATIONS_SELF_SERVICE: 'sometimes' }],
    ['GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET', { GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET: '0' }],
    ['GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET', { GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET: '2.5' }],
    ['GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET', { GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET: 'many' }],
    ['GRAPHQL_MAX_SOCKET_BUFFER_BYTES', { GRAPHQL_MAX_SOCKET_BUFFER_BYTES: '1023' }],
    ['GRAPHQL_MAX_SOCKET_BUFFER_BYTES', { GRAPHQL_MAX_SOCKET_BUFFER_BYTES: '1mb' }],
    ['GRAPHQL_MAX_SOCKETS_PER_USER', { GRAPHQL_MAX_SOCKETS_PER_USER: '0' }],
    ['GRAPHQL_MAX_SOCKETS_PER_IP', { GRAPHQL_MAX_SOCKETS_PER_IP: '-1' }],
    ['KEYRING_SECRET', { KEYRING_SECRET: 'too-short' }],
    ['KEYRING_SECRET', { KEYRING_SECRET: 'x'.repeat(31) }],
    ['HASH_THREADS', { HASH_THREADS: '0' }],
    ['HASH_THREADS', { HASH_THREADS: 'auto' }],
    ['HASH_QUEUE_MAX', { HASH_QUEUE_MAX: '-1' }],
    ['ARGON2_ITERATIONS', { ARGON2_ITERATIONS: '0' }],
    ['ARGON2_PARALLELISM', { ARGON2_PARALLELISM: '0' }],
    ['ARGON2_MEMORY_KIB', { ARGON2_MEMORY_KIB: '19455' }],
    ['ARGON2_MEMORY_KIB', { ARGON2_MEMORY_KIB: '19456', ARGON2_ITERATIONS: '1' }],
    ['ARGON2_MEMORY_KIB', { ARGON2_MEMORY_KIB: '9215', ARGON2_ITERATIONS: '4' }],
    ['ARGON2_MEMORY_KIB', { ARGON2_MEMORY_KIB: '7167', ARGON2_ITERATIONS: '10' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: '192.0.2.1' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: '[2001:db8::1]' }],
    ['WEBAUTHN_RP_ID', { WEBAUTHN_RP_ID: 'localhost' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: 'other.com' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: 'ample.com' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: 'com' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: 'https://example.com' }],
    ['WEBAUTHN_RP_ID', { PUBLIC_URL: 'https://example.com', WEBAUTHN_RP_ID: 'login.example.com' }],
  ])('refuses a bad %s with a ConfigError naming it: %j', (variable, env) => {
    const error = configError(env);
    expect(error.name).toBe('ConfigError');
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} must be `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it('takes PUBLIC_URL’s host as the passkeys’ RP ID, or a registrable domain it belongs to', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Login.Example.com:8443' }).webauthnRpId).toBe('login.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://login.example.com', WEBAUTHN_RP_ID: 'example.com' }).webauthnRpId).toBe('example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:3000', WEBAUTHN_RP_ID: 'localhost' }).webauthnRpId).toBe('localhost');
  });

  it('takes PUBLIC_URL’s host as the RP ID also when it is an IP address and WEBAUTHN_RP_ID is unset', () => {
    expect(loadConfig({}).webauthnRpId).toBe('127.0.0.1');
    expect(loadConfig({ PUBLIC_URL: 'http://[::1]:3000' }).webauthnRpId).toBe('[::1]');
  });

  it('accepts a KEYRING_SECRET of exactly 32 bytes', () => {
    expect(loadConfig({ KEYRING_SECRET: 'x'.repeat(32) }).keyringSecret).toBe('x'.repeat(32));
  });

  it('counts KEYRING_SECRET in bytes, not characters', () => {
    // 16 characters of 2 bytes each in UTF-8 make 32 bytes.
    expect(loadConfig({ KEYRING_SECRET: 'é'.repeat(16) }).keyringSecret).toBe('é'.repeat(16));
    expect(configError({ KEYRING_SECRET: 'é'.repeat(15) }).variable).toBe('KEYRING_SECRET');
  });

  it('names OWASP’s floor for the passes given when the Argon2id memory is below it', () => {
    expect(configError({ ARGON2_MEMORY_KIB: '8192', ARGON2_ITERATIONS: '3' }).message).toBe(
      'ARGON2_MEMORY_KIB must be at least 12288 with ARGON2_ITERATIONS=3 (OWASP\'s floor: 47104 KiB with 1 pass, 19456 with 2, 12288 with 3, 9216 with 4, 7168 with 5 or more) (got "8192")',
    );
  });

  it('says what it expects and what it got for a non-secret value', () => {
    expect(configError({ PORT: '70000' }).message).toBe('PORT must be an integer from 0 to 65535 (got "70000")');
  });

  it('keeps a message on one line even when the value holds a line break', () => {
    const error = configError({ CORS_ORIGINS: 'https://a.example.com\nhttps://b.example.com' });
    expect(error.variable).toBe('CORS_ORIGINS');
    expect(error.message).not.toContain('\n');
  });

  it('never shows KEYRING_SECRET in the message', () => {
    const secret = 'short-but-secret-value';
    const error = configError({ KEYRING_SECRET: secret });
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('short-but');
  });

  it('never shows an SMTP_URL that holds a password in the message', () => {
    const error = configError({ SMTP_URL: 'http://mailer:hunter2-password@smtp.example.com' });
    expect(error.variable).toBe('SMTP_URL');
    expect(error.message).not.toContain('hunter2-password');
    expect(error.message).not.toContain('mailer');
  });

  it('never shows a REDIS_URL or SMS_WEBHOOK_URL that holds a password in the message', () => {
    const redis = configError({ REDIS_URL: 'http://user:redis-password@cache:6379' });
    expect(redis.variable).toBe('REDIS_URL');
    expect(redis.message).not.toContain('redis-password');
    const sms = configError({ SMS_WEBHOOK_URL: 'ftp://user:sms-password@hooks.example.com' });
    expect(sms.variable).toBe('SMS_WEBHOOK_URL');
    expect(sms.message).not.toContain('sms-password');
  });

  it('never shows the password of a refused DATABASE_URL in the message', () => {
    const error = configError({ DATABASE_URL: 'mysql://app:db-password@db:3306/gatehouse' });
    expect(error.message).not.toContain('db-password');
  });

  // Generated passwords often hold `/` or `@` (base64); the redaction regex stops at the first
  // `/` and at the first `@`, so such a password is echoed whole or in part.
  it('never shows any part of a refused DATABASE_URL password that contains `/` or `@`', () => {
    expect(configError({ DATABASE_URL: 'mysql://app:Zm9v/YmFy@db:3306/gatehouse' }).message).not.toContain('YmFy');
    expect(configError({ DATABASE_URL: 'mysql://app:Zm9v@YmFy@db:3306/gatehouse' }).message).not.toContain('YmFy');
  });

  it('never shows a valid SMTP_URL in another variable’s message', () => {
    const error = configError({ ...PRODUCTION, KEYRING_SECRET: undefined });
    expect(error.variable).toBe('KEYRING_SECRET');
    expect(error.message).not.toContain('mail-password');
  });
});

describe('loadConfig in production', () => {
  it('accepts an https PUBLIC_URL with KEYRING_SECRET and SMTP_URL', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.production).toBe(true);
    expect(config.publicUrl.origin).toBe('https://auth.example.com');
    expect(config.keyringSecret).toBe(KEYRING_SECRET);
    expect(config.smtpUrl?.hostname).toBe('smtp.example.com');
  });

  it('requires PUBLIC_URL, since the derived one is http', () => {
    expect(configError({ ...PRODUCTION, PUBLIC_URL: undefined }).variable).toBe('PUBLIC_URL');
  });

  it('refuses an http PUBLIC_URL', () => {
    const error = configError({ ...PRODUCTION, PUBLIC_URL: 'http://auth.example.com' });
    expect(error.variable).toBe('PUBLIC_URL');
    expect(error.message).toMatch(/https/);
  });

  it('requires KEYRING_SECRET', () => {
    expect(configError({ ...PRODUCTION, KEYRING_SECRET: undefined }).variable).toBe('KEYRING_SECRET');
  });

  it('still refuses a short KEYRING_SECRET', () => {
    expect(configError({ ...PRODUCTION, KEYRING_SECRET: 'short' }).variable).toBe('KEYRING_SECRET');
  });

  it('requires SMTP_URL where mail is sent (a password sign-in), and only there', () => {
    const config = loadConfig({ ...PRODUCTION, SMTP_URL: undefined });
    expect(() => requireMailInProduction(config, true)).toThrow(expect.objectContaining({ variable: 'SMTP_URL' }));
    expect(() => requireMailInProduction(config, false)).not.toThrow();
    expect(() => requireMailInProduction(loadConfig(PRODUCTION), true)).not.toThrow();
    expect(() => requireMailInProduction(loadConfig({}), true)).not.toThrow();
  });

  it('refuses an http OIDC issuer', () => {
    const error = configError({
      ...PRODUCTION,
      OIDC_GOOGLE_ISSUER: 'http://accounts.example.com',
      OIDC_GOOGLE_CLIENT_ID: 'id',
      OIDC_GOOGLE_CLIENT_SECRET: 'oidc-secret',
    });
    expect(error.variable).toBe('OIDC_GOOGLE_ISSUER');
  });

  it('needs none of this outside production', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'http://auth.example.com' })).not.toThrow();
  });
});

describe('loadConfig OIDC providers', () => {
  it('reads one provider per OIDC_<NAME>_ISSUER, with the name lower-cased', () => {
    const config = loadConfig({
      OIDC_GOOGLE_ISSUER: 'https://accounts.google.com',
      OIDC_GOOGLE_CLIENT_ID: 'google-client',
      OIDC_GOOGLE_CLIENT_SECRET: 'google-secret',
      OIDC_GOOGLE_TRUST_EMAIL: 'true',
      OIDC_CORP2_ISSUER: 'http://localhost:8080/realms/corp',
      OIDC_CORP2_CLIENT_ID: 'corp-client',
      OIDC_CORP2_CLIENT_SECRET: 'corp-secret',
    });
    expect(
      config.oidcProviders.map(({ name, issuer, clientId, clientSecret, trustEmail }) => ({
        name,
        issuer: issuer.href,
        clientId,
        clientSecret,
        trustEmail,
      })),
    ).toEqual([
      { name: 'corp2', issuer: 'http://localhost:8080/realms/corp', clientId: 'corp-client', clientSecret: 'corp-secret', trustEmail: false },
      { name: 'google', issuer: 'https://accounts.google.com/', clientId: 'google-client', clientSecret: 'google-secret', trustEmail: true },
    ]);
  });

  it('refuses a provider without a client id', () => {
    const error = configError({ OIDC_GOOGLE_ISSUER: 'https://accounts.google.com', OIDC_GOOGLE_CLIENT_SECRET: 'google-secret' });
    expect(error.variable).toBe('OIDC_GOOGLE_CLIENT_ID');
    expect(error.message).not.toContain('google-secret');
  });

  it('refuses a provider without a client secret', () => {
    const error = configError({ OIDC_GOOGLE_ISSUER: 'https://accounts.google.com', OIDC_GOOGLE_CLIENT_ID: 'google-client' });
    expect(error.variable).toBe('OIDC_GOOGLE_CLIENT_SECRET');
  });

  it('refuses a provider whose issuer is not a URL', () => {
    const error = configError({ OIDC_GOOGLE_ISSUER: 'accounts.google.com', OIDC_GOOGLE_CLIENT_ID: 'id', OIDC_GOOGLE_CLIENT_SECRET: 's' });
    expect(error.variable).toBe('OIDC_GOOGLE_ISSUER');
  });

  it('refuses a TRUST_EMAIL that is not a boolean', () => {
    const error = configError({
      OIDC_GOOGLE_ISSUER: 'https://accounts.google.com',
      OIDC_GOOGLE_CLIENT_ID: 'id',
      OIDC_GOOGLE_CLIENT_SECRET: 's',
      OIDC_GOOGLE_TRUST_EMAIL: 'sometimes',
    });
    expect(error.variable).toBe('OIDC_GOOGLE_TRUST_EMAIL');
  });

  it('reads no provider from client settings without an issuer', () => {
    expect(loadConfig({ OIDC_GOOGLE_CLIENT_ID: 'id', OIDC_GOOGLE_CLIENT_SECRET: 's' }).oidcProviders).toEqual([]);
  });
});
