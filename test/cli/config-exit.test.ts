/**
 * The service process as `npm start` runs it (package.json's start script: `node … dist/server/main.js`), docs/reference/configuration.md:
 * a bad configuration value stops it with exit code 2 and one line naming the variable (never a
 * stack trace, never a secret); a good one logs its URL once and serves `/health` over a real
 * socket until it is stopped. On each store engine.
 */
import { afterAll, describe, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { serviceArguments } from '../../bench/lib/gatehouse.ts';
import { isAlive, projectRoot, runNode, spawnService, serviceListening, useProcessCleanup } from '../helpers/processes.ts';

const engines = await testEngines();

/** A valid secret (≥ 32 bytes) that must never appear in any output. */
const KEYRING_SECRET = 'keyring-secret-7d1f0c2b9a4e6f8801234567';
/** A line of a stack trace (`    at fn (file:1:2)`); a message may say "at least (…)" without being one. */
const STACK_FRAME = /^\s*at .*\(/m;
const SHORT_SECRET = 'hunter2-but-longer';

interface BadCase {
  readonly variable: string;
  readonly env: Record<string, string | undefined>;
  /** The secret value the output must not contain. */
  readonly secret: string;
}

const BAD_CASES: readonly [string, BadCase][] = [
  ['PORT=abc', { variable: 'PORT', env: { PORT: 'abc', KEYRING_SECRET }, secret: KEYRING_SECRET }],
  ['ACCESS_TOKEN_MINUTES=-1', { variable: 'ACCESS_TOKEN_MINUTES', env: { ACCESS_TOKEN_MINUTES: '-1', KEYRING_SECRET }, secret: KEYRING_SECRET }],
  ['DATABASE_URL=mysql://x', { variable: 'DATABASE_URL', env: { DATABASE_URL: 'mysql://x', KEYRING_SECRET }, secret: KEYRING_SECRET }],
  // A setting of the service's own (server/settings.ts), refused the same way.
  ['BUSINESS_HOURS=9-17', { variable: 'BUSINESS_HOURS', env: { BUSINESS_HOURS: '9-17', KEYRING_SECRET }, secret: KEYRING_SECRET }],
  [
    'NODE_ENV=production without KEYRING_SECRET',
    {
      variable: 'KEYRING_SECRET',
      env: { NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.com', SMTP_URL: 'smtp://mailer:pw@mail.example.com:587', KEYRING_SECRET: undefined },
      secret: 'mailer:pw',
    },
  ],
  [
    // Asked for by the plugin (the service signs people in with passwords, and mails them), not by the configuration.
    'NODE_ENV=production without SMTP_URL',
    { variable: 'SMTP_URL', env: { NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.com', KEYRING_SECRET }, secret: KEYRING_SECRET },
  ],
  // Below every row of OWASP's Argon2id table: the service does not start rather than write weak hashes.
  ['ARGON2_MEMORY_KIB=8192 with ARGON2_ITERATIONS=2', { variable: 'ARGON2_MEMORY_KIB', env: { ARGON2_MEMORY_KIB: '8192', ARGON2_ITERATIONS: '2', KEYRING_SECRET }, secret: KEYRING_SECRET }],
  // Browsers refuse an IP address as a passkey relying party: refused at start, not at the first ceremony.
  ['WEBAUTHN_RP_ID=127.0.0.1', { variable: 'WEBAUTHN_RP_ID', env: { WEBAUTHN_RP_ID: '127.0.0.1', KEYRING_SECRET }, secret: KEYRING_SECRET }],
  ['a KEYRING_SECRET shorter than 32 bytes', { variable: 'KEYRING_SECRET', env: { KEYRING_SECRET: SHORT_SECRET }, secret: SHORT_SECRET }],
  // A global role as an organization role would let a membership open a global policy.
  ['ORGANIZATION_ROLES=Agent,SuperAdmin', { variable: 'ORGANIZATION_ROLES', env: { ORGANIZATION_ROLES: 'Agent,SuperAdmin', KEYRING_SECRET }, secret: KEYRING_SECRET }],
];

useProcessCleanup({ afterEachTest: false });

describe.concurrent.each(engines)('the service process on $engine', (engine) => {
  afterAll(() => engine.dropAll());

  it.for(BAD_CASES)('exits 2 with one line naming the variable, no stack trace and no secret, for %s', async ([, bad], { expect }) => {
    const databaseUrl = await engine.createDatabaseUrl();
    const result = await runNode(serviceArguments(projectRoot), { PORT: '0', DATABASE_URL: databaseUrl, ...bad.env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^[^\\n]*\\b${bad.variable}\\b[^\\n]*\\n$`));
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout).toBe('');
    expect(result.stdout + result.stderr).not.toContain(bad.secret);
  });

  it('starts on a fresh database, logs its URL once, answers GET /health with 200 over a socket, and stops on SIGTERM', async ({ expect }) => {
    const databaseUrl = await engine.createDatabaseUrl();
    const handle = spawnService({ PORT: '0', DATABASE_URL: databaseUrl, KEYRING_SECRET: undefined });
    const service = await serviceListening(handle);
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);

    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('');
    const lines = handle.stdout().split('\n');
    expect(lines.filter((line) => line.includes('Gatehouse listening on http://'))).toHaveLength(1);
    // Outside production without KEYRING_SECRET: one warning that the ring is unencrypted.
    expect(lines.filter((line) => line.includes('KEYRING_SECRET'))).toHaveLength(1);

    const exit = await service.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(isAlive(handle.pid)).toBe(false);
    await expect(fetch(`${service.url}/health`)).rejects.toThrow();
  });
});
