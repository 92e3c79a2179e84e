/**
 * Revocation across instances (docs/reference/tokens.md, docs/reference/persistence.md and docs/reference/cli.md): two instances on one database learn of
 * a change made on the other, or by the CLI in another process, within 5 seconds: by polling the
 * store without Redis, by a Redis nudge with `REDIS_URL`. Each test starts its own pair on a fresh
 * database; "within 5 s" counts from the moment the change returned.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/store/ports.ts';
import { redisAvailable, type TestEngine, testEngines } from '../helpers/databases.ts';
import { runCli, useProcessCleanup } from '../helpers/processes.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const withRedis = await redisAvailable();
const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
const POLL_INTERVAL_MS = 50;

interface Variant {
  readonly name: string;
  readonly redisUrl: string | undefined;
  readonly skip: boolean;
}

const variants: Variant[] = [
  { name: 'polling the store (no Redis)', redisUrl: undefined, skip: false },
  { name: 'with Redis', redisUrl: testRedisUrl, skip: !withRedis },
];

useProcessCleanup({ afterEachTest: false });

/**
 * Resolves once `probe` holds; fails unless a probe that STARTED before `deadline` saw it hold.
 * A probe that started in time and answered after the deadline still counts: it saw the state
 * the instance was in before the deadline.
 */
async function holdsBy(deadline: number, what: string, probe: () => Promise<boolean>): Promise<void> {
  for (;;) {
    const startedAt = Date.now();
    if (startedAt >= deadline) throw new Error(`not within ${PROPAGATION_MS} ms: ${what}`);
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

interface Pair {
  readonly a: TestApp;
  readonly b: TestApp;
  readonly databaseUrl: string;
  /** The environment a CLI process needs to act on this pair's database (and Redis). */
  readonly cliEnv: Record<string, string | undefined>;
  readonly adminHeaders: Record<string, string>;
}

async function startPair(engine: TestEngine, variant: Variant): Promise<Pair> {
  const databaseUrl = await engine.createDatabaseUrl();
  const env: Record<string, string> = variant.redisUrl ? { REDIS_URL: variant.redisUrl } : {};
  // Sequentially: the first creates the key ring, the second opens it.
  const a = await startTestApp(databaseUrl, { env });
  const b = await startTestApp(databaseUrl, { env });
  const { user: admin } = await a.createUser({ roles: ['Admin'] });
  return {
    a,
    b,
    databaseUrl,
    cliEnv: {
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      REDIS_URL: variant.redisUrl,
      KEYRING_SECRET: undefined,
      LOG_LEVEL: undefined,
    },
    adminHeaders: bearer(await a.tokenFor(admin)),
  };
}

async function stopPair(pair: Pair | undefined): Promise<void> {
  if (!pair) return;
  await Promise.all([pair.a.close(), pair.b.close()]);
}

async function signIn(instance: TestApp, user: User, password: string): Promise<string> {
  const response = await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
  if (response.statusCode !== 200) throw new Error(`POST /auth/token answered ${response.statusCode}: ${response.body}`);
  return json<{ accessToken: string }>(response).accessToken;
}

async function meStatus(instance: TestApp, token: string): Promise<number> {
  return (await instance.app.inject({ url: '/me', headers: bearer(token) })).statusCode;
}

async function adminStatus(instance: TestApp, token: string): Promise<number> {
  return (await instance.app.inject({ url: '/admin/users', headers: bearer(token) })).statusCode;
}

async function whoamiStatus(instance: TestApp, key: string): Promise<number> {
  return (await instance.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } })).statusCode;
}

async function refusedBy(instance: TestApp, name: string, token: string, deadline: number): Promise<void> {
  await holdsBy(deadline, `instance ${name} to refuse the token`, async () => (await meStatus(instance, token)) === 401);
}

function kidOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
}

async function cli(pair: Pair, args: string[]): Promise<string> {
  const result = await runCli(args, pair.cliEnv);
  expect(result.code, `gatehouse ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

// Engines and variants side by side; the tests of one suite in order.
describe.concurrent.each(engines)('revocation across two instances on one $engine database', (engine) => {
  afterAll(() => engine.dropAll());

  describe.concurrent.each(variants)('$name', (variant) => {
    describe.skipIf(variant.skip).sequential('in order', { timeout: 60_000 }, () => {
      async function withPair(run: (pair: Pair) => Promise<void>): Promise<void> {
        let pair: Pair | undefined;
        try {
          pair = await startPair(engine, variant);
          await run(pair);
        } finally {
          await stopPair(pair);
        }
      }

      it('a user deleted on A through the admin API: B refuses its access token within 5 s', async () => {
        await withPair(async ({ a, b, adminHeaders }) => {
          const { user, password } = await a.createUser();
          const token = await signIn(a, user, password);
          // Accepted first, so B has it in its verified-token cache.
          expect(await meStatus(b, token)).toBe(200);
          const response = await a.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}`, headers: adminHeaders });
          const deadline = Date.now() + PROPAGATION_MS;
          expect(response.statusCode).toBe(204);
          await refusedBy(b, 'B', token, deadline);
          expect(await meStatus(a, token)).toBe(401);
        });
      });

      it('an admin lock on A: B refuses the user\'s access token within 5 s', async () => {
        await withPair(async ({ a, b, adminHeaders }) => {
          const { user, password } = await a.createUser();
          const token = await signIn(a, user, password);
          expect(await meStatus(b, token)).toBe(200);
          const response = await a.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers: adminHeaders });
          const deadline = Date.now() + PROPAGATION_MS;
          expect(response.statusCode).toBe(204);
          await refusedBy(b, 'B', token, deadline);
          expect(await meStatus(a, token)).toBe(401);
          // A new sign-in is refused too, on either instance.
          for (const instance of [a, b]) {
            const refused = await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
            expect(refused.statusCode).toBe(401);
          }
        });
      });

      it('a role removed on A: B refuses the older token within 5 s, and a token A issues after the change works on B without the role', async () => {
        await withPair(async ({ a, b, adminHeaders }) => {
          const { user, password } = await a.createUser({ roles: ['Admin', 'Editor'] });
          const older = await signIn(a, user, password);
          expect(await adminStatus(b, older)).toBe(200);
          const response = await a.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}/roles/Admin`, headers: adminHeaders });
          const deadline = Date.now() + PROPAGATION_MS;
          expect(response.statusCode).toBe(204);
          await refusedBy(b, 'B', older, deadline);

          const newer = await signIn(a, user, password);
          expect(await meStatus(b, newer)).toBe(200);
          expect(await adminStatus(b, newer)).toBe(403);
          expect(await meStatus(a, newer)).toBe(200);
        });
      });

      it('a role added on A: B refuses the older token within 5 s, and a token A issues after the change carries the role on B', async () => {
        await withPair(async ({ a, b, adminHeaders }) => {
          const { user, password } = await a.createUser({ roles: ['Editor'] });
          const older = await signIn(a, user, password);
          expect(await adminStatus(b, older)).toBe(403);
          const response = await a.app.inject({ method: 'POST', url: `/admin/users/${user.id}/roles`, headers: adminHeaders, payload: { role: 'Admin' } });
          const deadline = Date.now() + PROPAGATION_MS;
          expect(response.statusCode).toBe(204);
          await refusedBy(b, 'B', older, deadline);
          const newer = await signIn(a, user, password);
          expect(await adminStatus(b, newer)).toBe(200);
        });
      });

      it('users delete by the CLI in another process: both instances refuse the user\'s token within 5 s', async () => {
        await withPair(async (pair) => {
          const { a, b } = pair;
          const { user, password } = await a.createUser();
          const token = await signIn(a, user, password);
          expect([await meStatus(a, token), await meStatus(b, token)]).toEqual([200, 200]);
          await cli(pair, ['users', 'delete', '--email', user.email]);
          const deadline = Date.now() + PROPAGATION_MS;
          await Promise.all([refusedBy(a, 'A', token, deadline), refusedBy(b, 'B', token, deadline)]);
        });
      });

      it('users roles remove by the CLI: both refuse the older token within 5 s, and a newer token works on both without the role', async () => {
        await withPair(async (pair) => {
          const { a, b } = pair;
          const { user, password } = await a.createUser({ roles: ['Admin', 'Editor'] });
          const older = await signIn(b, user, password);
          expect([await adminStatus(a, older), await adminStatus(b, older)]).toEqual([200, 200]);
          await cli(pair, ['users', 'roles', 'remove', '--email', user.email, '--role', 'Admin']);
          const deadline = Date.now() + PROPAGATION_MS;
          await Promise.all([refusedBy(a, 'A', older, deadline), refusedBy(b, 'B', older, deadline)]);
          const newer = await signIn(a, user, password);
          for (const instance of [a, b]) {
            expect(await meStatus(instance, newer)).toBe(200);
            expect(await adminStatus(instance, newer)).toBe(403);
          }
        });
      });

      it('users claims remove by the CLI (a claims change): both refuse the older token within 5 s', async () => {
        await withPair(async (pair) => {
          const { a, b } = pair;
          const { user, password } = await a.createUser({ claims: [{ type: 'subscription', value: 'premium' }] });
          const older = await signIn(a, user, password);
          for (const instance of [a, b]) {
            expect((await instance.app.inject({ url: '/content/premium', headers: bearer(older) })).statusCode).toBe(200);
          }
          await cli(pair, ['users', 'claims', 'remove', '--email', user.email, '--claim', 'subscription=premium']);
          const deadline = Date.now() + PROPAGATION_MS;
          await Promise.all([refusedBy(a, 'A', older, deadline), refusedBy(b, 'B', older, deadline)]);
          const newer = await signIn(b, user, password);
          for (const instance of [a, b]) {
            expect((await instance.app.inject({ url: '/content/premium', headers: bearer(newer) })).statusCode).toBe(403);
          }
        });
      });

      it('apikeys revoke --client by the CLI: a key that worked (and is cached) on both fails on both within 5 s', async () => {
        await withPair(async (pair) => {
          const { a, b } = pair;
          const client = `reports-${process.pid}`;
          const key = (await cli(pair, ['apikeys', 'create', '--client', client])).trim();
          const other = await a.apiKey(`other-${process.pid}`);
          for (const instance of [a, b]) {
            expect(await whoamiStatus(instance, key)).toBe(200);
            expect(await whoamiStatus(instance, key)).toBe(200);
            expect(await whoamiStatus(instance, other)).toBe(200);
          }
          await cli(pair, ['apikeys', 'revoke', '--client', client]);
          const deadline = Date.now() + PROPAGATION_MS;
          await Promise.all(
            [a, b].map((instance, index) =>
              holdsBy(deadline, `instance ${'AB'[index]} to refuse the revoked key`, async () => (await whoamiStatus(instance, key)) === 401),
            ),
          );
          // Only that client's keys.
          for (const instance of [a, b]) expect(await whoamiStatus(instance, other)).toBe(200);
        });
      });

      it('keys revoke --kid of the current key by the CLI: tokens of that key fail on both within 5 s, and new tokens work on both', async () => {
        await withPair(async (pair) => {
          const { a, b } = pair;
          const { user, password } = await a.createUser();
          const token = await signIn(a, user, password);
          const kid = kidOf(token);
          expect(a.services.keyRing.current.kid).toBe(kid);
          expect([await meStatus(a, token), await meStatus(b, token)]).toEqual([200, 200]);

          const newKid = (await cli(pair, ['keys', 'revoke', '--kid', kid])).trim();
          const deadline = Date.now() + PROPAGATION_MS;
          expect(newKid).not.toBe('');
          expect(newKid).not.toBe(kid);
          await Promise.all([refusedBy(a, 'A', token, deadline), refusedBy(b, 'B', token, deadline)]);

          // Signing went on with the new key, and both instances accept its tokens.
          const fresh = await signIn(b, user, password);
          expect(kidOf(fresh)).toBe(newKid);
          expect([await meStatus(a, fresh), await meStatus(b, fresh)]).toEqual([200, 200]);
        });
      });
    });
  });
});
