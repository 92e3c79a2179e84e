/**
 * Lockout after failed sign-ins (docs/reference/http.md, docs/reference/membership.md and docs/reference/security-events.md):
 * at LOCKOUT_MAX_ATTEMPTS wrong passwords the account locks for LOCKOUT_MINUTES; while locked,
 * even the right password gets the generic failure; the lock ends on its own, or by an admin;
 * only a completed sign-in resets the count; tokens issued before the lock go on; the lock is
 * an audit `lockout` event and one call of the owner's notice. Concurrent failures lock once.
 * Driven through `POST /auth/token` on each engine, with the rate limits off (they have their
 * own suite) and an injected clock.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { buildService } from '../../server/app.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import { loadServiceSettings } from '../../server/settings.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Services } from '../../src/services.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Store, User } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

const engines = await testEngines();
const PASSWORD = 'a long and unusual passphrase';
const LOCKOUT_MS = 5 * 60_000;

describe.each(engines)('sign-in lockout on $engine', (engine) => {
  let app: FastifyInstance;
  let services: Services;
  let store: Store;
  let clock: ManualClock;
  let lockouts: { userId: number; until: number }[];
  let user: User;

  beforeEach(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    // Defaults of docs/reference/configuration.md (5 attempts, 5 minutes); only the rate limits are off.
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
      RATE_LIMIT_IP_PER_MINUTE: '0',
    });
    store = await createStore(databaseUrl, { migrations: serviceMigrations });
    await store.migrate();
    clock = new ManualClock();
    lockouts = [];
    const logger = createLogger({ level: 'warn', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    app = await buildService({
      config,
      settings: loadServiceSettings({}),
      store,
      logger,
      clock,
      gatehouse: { onLockout: async (locked, until) => void lockouts.push({ userId: locked.id, until }) },
    });
    await app.ready();
    services = gatehouseServices(app.gatehouse);
    user = await services.users.create({ email: 'ada@example.com', password: PASSWORD, emailConfirmed: true });
  });
  afterEach(async () => {
    await app.close();
    await store.close();
  });
  afterAll(() => engine.dropAll());

  const signIn = (password: string) => app.inject({ method: 'POST', url: '/auth/token', payload: { email: 'ada@example.com', password } });
  const fail = async (times: number) => {
    for (let i = 0; i < times; i++) expect((await signIn('wrong password')).statusCode).toBe(401);
  };
  const stored = async () => (await store.users.findById(user.id))!;
  const lockoutEvents = async () => (await store.audit.list({ limit: 200 })).filter((event) => event.type === 'lockout');

  it('locks after the fifth failure, not before', async () => {
    await fail(4);
    expect(await stored()).toMatchObject({ accessFailedCount: 4, lockoutEnd: null });
    await fail(1);
    expect(await stored()).toMatchObject({ accessFailedCount: 0, lockoutEnd: clock.now() + LOCKOUT_MS });
  });

  it('refuses the RIGHT password while locked with the very body a wrong password gets, and counts nothing', async () => {
    const wrong = await signIn('wrong password');
    await fail(4);
    const right = await signIn(PASSWORD);
    expect(right.statusCode).toBe(401);
    expect(right.headers['content-type']).toBe(wrong.headers['content-type']);
    expect(right.body).toBe(wrong.body);
    expect(json(right)).toMatchObject({ status: 401, succeeded: false, code: 'GH_SIGNIN_FAILED' });
    expect(json(right)).not.toHaveProperty('isLockedOut');
    await fail(3);
    expect(await stored()).toMatchObject({ accessFailedCount: 0, lockoutEnd: clock.now() + LOCKOUT_MS });
  });

  it('lets the owner in once LOCKOUT_MINUTES have passed, and not a millisecond before', async () => {
    await fail(5);
    clock.advance(LOCKOUT_MS - 1);
    expect((await signIn(PASSWORD)).statusCode).toBe(401);
    clock.advance(1);
    expect((await signIn(PASSWORD)).statusCode).toBe(200);
  });

  it('resets the count at a successful sign-in, so failures on either side of it do not add up', async () => {
    await fail(4);
    expect((await signIn(PASSWORD)).statusCode).toBe(200);
    expect((await stored()).accessFailedCount).toBe(0);
    await fail(4);
    expect(await stored()).toMatchObject({ accessFailedCount: 4, lockoutEnd: null });
    expect((await signIn(PASSWORD)).statusCode).toBe(200);
  });

  it('is lifted by an admin unlock', async () => {
    const admin = await services.users.create({ email: 'root@example.com', password: PASSWORD, emailConfirmed: true, roles: ['Admin'] });
    const adminToken = (await services.accessTokens.issue(admin)).token;
    await fail(5);
    const unlock = await app.inject({ method: 'POST', url: `/admin/users/${user.id}/unlock`, headers: bearer(adminToken) });
    expect(unlock.statusCode).toBe(204);
    expect(await stored()).toMatchObject({ accessFailedCount: 0, lockoutEnd: null });
    expect((await signIn(PASSWORD)).statusCode).toBe(200);
  });

  it('leaves the access and refresh tokens issued before the lockout working', async () => {
    const before = json<{ accessToken: string; refreshToken: string }>(await signIn(PASSWORD));
    await fail(5);
    expect((await stored()).lockoutEnd).not.toBeNull();
    expect((await app.inject({ url: '/me', headers: bearer(before.accessToken) })).statusCode).toBe(200);
    const refresh = await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: before.refreshToken } });
    expect(refresh.statusCode).toBe(200);
  });

  it('records one `lockout` audit event and tells the owner once, with the end of the lockout', async () => {
    await fail(5);
    const until = clock.now() + LOCKOUT_MS;
    await fail(3);
    expect(await lockoutEvents()).toEqual([
      expect.objectContaining({ type: 'lockout', userId: user.id, detail: { until: new Date(until).toISOString(), attempts: 5 } }),
    ]);
    expect(lockouts).toEqual([{ userId: user.id, until }]);
  });

  it('locks exactly once when 20 wrong passwords arrive at the same time', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => signIn('wrong password')));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(401));
    expect(await stored()).toMatchObject({ accessFailedCount: 0, lockoutEnd: clock.now() + LOCKOUT_MS });
    expect(await lockoutEvents()).toHaveLength(1);
    expect(lockouts).toHaveLength(1);
    expect((await signIn(PASSWORD)).statusCode).toBe(401);
  });

  it('loses no count when failures below the maximum arrive at the same time', async () => {
    await Promise.all(Array.from({ length: 4 }, () => signIn('wrong password')));
    expect(await stored()).toMatchObject({ accessFailedCount: 4, lockoutEnd: null });
    await fail(1);
    expect((await stored()).lockoutEnd).toBe(clock.now() + LOCKOUT_MS);
  });
});
