/**
 * docs/reference/configuration.md (ARGON2_*), decision 0054: a stored Argon2id hash weaker than the
 * configured parameters is hashed again with them at the next successful password sign-in; a
 * wrong password changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/identity/password-hasher.ts';
import { testEngines } from '../helpers/databases.ts';
import { useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const PASSWORD = 'a long and unusual passphrase';
/** OWASP's third row, the service configured with more memory and as many passes. */
const CONFIGURED = { ARGON2_MEMORY_KIB: '24576', ARGON2_ITERATIONS: '3', ARGON2_PARALLELISM: '1' };

describe.each(engines)('password hashes made with weaker parameters on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { ...CONFIGURED, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });

  it('are replaced with the configured parameters at the next sign-in, and left alone by a wrong password', async () => {
    const { user } = await ctx.createUser({ password: PASSWORD });
    const weaker = await new PasswordHasher({ parameters: { memoryKib: 12_288, iterations: 3, parallelism: 1 } }).hash(PASSWORD);
    expect(await ctx.services.store.users.upgradePasswordHash(user.id, (await ctx.services.store.users.findById(user.id))!.passwordHash!, weaker)).toBe(true);
    const login = (password: string) => ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
    const storedHash = async () => (await ctx.services.store.users.findById(user.id))!.passwordHash!;

    expect((await login('not the password')).statusCode).toBe(401);
    expect(await storedHash()).toBe(weaker);

    expect((await login(PASSWORD)).statusCode).toBe(200);
    const upgraded = await storedHash();
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=24576,t=3,p=1\$/);
    expect(await ctx.services.users.findById(user.id).then((found) => found?.securityStamp)).toBe(user.securityStamp);
    // The new hash is of the same password: the next sign-in works and rewrites nothing.
    expect((await login(PASSWORD)).statusCode).toBe(200);
    expect(await storedHash()).toBe(upgraded);
  });

  it('made the new accounts’ hashes with the configured parameters', async () => {
    const { user } = await ctx.createUser({ password: PASSWORD });
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=24576,t=3,p=1\$/);
  });
});
