/**
 * RevocationFeed over a real store (docs/reference/tokens.md): the first read looks back a fixed window,
 * later reads pick up what was written since, overlapping reads apply each event once, a change
 * this process made is applied before `changed()` returns, and with Redis an announcement makes
 * other instances read at once. Its Redis connections end with `stop()`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redisAvailable, testEngines } from '../../test/helpers/databases.ts';
import { projectRoot, runNode, waitUntil } from '../../test/helpers/processes.ts';
import { ManualClock } from '../platform/clock.ts';
import { RedisConnection } from '../platform/redis-connection.ts';
import { createStore } from '../store/create-store.ts';
import type { NewUser, RevocationEvent, RevocationStore, Store, User } from '../store/ports.ts';
import { RevocationFeed } from './revocation-feed.ts';
import { RevocationList } from './revocation-list.ts';

const engines = await testEngines();
const withRedis = await redisAvailable();
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const LOOK_BACK_MS = 60_000;
/** Long enough that no timer read happens during a test: every read is the test's doing. */
const NO_POLLING_MS = 60_000;
const silent = pino({ level: 'silent' });

function newUser(email: string, createdAt: number): NewUser {
  return {
    email,
    normalizedEmail: email,
    userName: null,
    normalizedUserName: null,
    passwordHash: null,
    emailConfirmed: true,
    createdAt,
  };
}

/** A list with a record of every event it passed on to listeners (once per id). */
function recordingList(): { list: RevocationList; applied: RevocationEvent[] } {
  const list = new RevocationList();
  const applied: RevocationEvent[] = [];
  list.onEvent((event) => applied.push(event));
  return { list, applied };
}

describe.each(engines)('RevocationFeed on $engine', (engine) => {
  const clock = new ManualClock(T0);
  let store: Store;
  let databaseUrl: string;
  const feeds: RevocationFeed[] = [];
  const extraStores: Store[] = [];

  const connections: RedisConnection[] = [];

  /** A Redis connection of the feed's, closed after each test as Gatehouse closes its own. */
  function redisConnection(): RedisConnection {
    const connection = new RedisConnection({ url: redisUrl, logger: silent, clock });
    connections.push(connection);
    return connection;
  }

  function feed(options: { list: RevocationList; store?: RevocationStore; pollMs?: number; redis?: RedisConnection }): RevocationFeed {
    const created = new RevocationFeed({
      store: options.store ?? store.revocations,
      list: options.list,
      clock,
      logger: silent,
      lookBackMs: LOOK_BACK_MS,
      pollMs: options.pollMs ?? NO_POLLING_MS,
      ...(options.redis ? { redis: options.redis } : {}),
    });
    feeds.push(created);
    return created;
  }

  /** A user created at `at`, with one role change at `at` (one `user` event). */
  async function userChangedAt(at: number, name: string): Promise<User> {
    clock.set(at);
    const user = await store.users.create(newUser(`${name}-${randomBytes(4).toString('hex')}@example.com`, at));
    expect(await store.users.addRole(user.id, 'Editor')).toBe(true);
    return user;
  }

  beforeEach(async () => {
    clock.set(T0);
    databaseUrl = await engine.createDatabaseUrl();
    store = await createStore(databaseUrl, { clock });
    await store.migrate();
  });

  afterEach(async () => {
    await Promise.all(feeds.splice(0).map((created) => created.stop()));
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await Promise.all(extraStores.splice(0).map((extra) => extra.close()));
    await store.close();
    await engine.dropAll();
  });

  it('applies, on its first read, the events within the look-back window and not older ones', async () => {
    const tooOld = await userChangedAt(T0 - LOOK_BACK_MS - RevocationFeed.OVERLAP_MS - 1, 'old');
    const longAgo = await userChangedAt(T0 - 10 * LOOK_BACK_MS, 'ancient');
    const edge = await userChangedAt(T0 - LOOK_BACK_MS + 1, 'edge');
    const recent = await userChangedAt(T0 - 1_000, 'recent');
    clock.set(T0);
    const { list, applied } = recordingList();
    await feed({ list }).start();

    expect(applied.map((event) => event.subject)).toEqual([String(edge.id), String(recent.id)]);
    // Role changes bumped the claims stamp to 2: tokens carrying 1 are refused for those users only.
    expect(list.refusesAccessToken(edge.id, 1)).toBe(true);
    expect(list.refusesAccessToken(recent.id, 1)).toBe(true);
    expect(list.refusesAccessToken(recent.id, 2)).toBe(false);
    expect(list.refusesAccessToken(tooOld.id, 1)).toBe(false);
    expect(list.refusesAccessToken(longAgo.id, 1)).toBe(false);
  });

  it('picks up on a later read the events written since the previous one: role, claim, lock and deletion alike', async () => {
    const { list, applied } = recordingList();
    const created = feed({ list });
    await created.start();
    expect(applied).toEqual([]);

    clock.set(T0 + 1_000);
    const user = await store.users.create(newUser(`later-${randomBytes(4).toString('hex')}@example.com`, clock.now()));
    await created.read();
    expect(applied).toEqual([]);

    clock.set(T0 + 2_000);
    expect(await store.users.addRole(user.id, 'Auditor')).toBe(true);
    expect(await store.users.addClaim(user.id, { type: 'dept', value: 'sales' })).toBe(true);
    await created.read();
    expect(applied.map((event) => [event.kind, event.claimsStamp, event.securityStamp])).toEqual([
      ['user', 2, 1],
      ['user', 3, 1],
    ]);
    expect(list.refusesAccessToken(user.id, 2)).toBe(true);
    expect(list.refusesAccessToken(user.id, 3)).toBe(false);
    expect(list.refusesSecurityStamp(user.id, 1)).toBe(false);

    clock.set(T0 + 3_000);
    expect(await store.users.setAdminLock(user.id, true)).toBe(true);
    await created.read();
    expect(list.refusesSecurityStamp(user.id, 1)).toBe(true);
    expect(list.refusesAccessToken(user.id, 3)).toBe(true);

    clock.set(T0 + 4_000);
    expect(await store.users.delete(user.id)).toBe(true);
    await created.read();
    expect(applied.at(-1)).toMatchObject({ kind: 'user-deleted', subject: String(user.id) });
    expect(list.refusesAccessToken(user.id, 1_000)).toBe(true);
  });

  it('applies each event once across overlapping and concurrent reads', async () => {
    const { list, applied } = recordingList();
    const created = feed({ list });
    await created.start();
    const user = await userChangedAt(T0 + 500, 'overlap');

    // Each read reaches OVERLAP_MS behind the previous one, so the event is listed again and again.
    for (const at of [T0 + 1_000, T0 + 1_500, T0 + 2_000, T0 + 3_000]) {
      clock.set(at);
      await created.read();
    }
    await Promise.all([created.read(), created.read(), created.read()]);
    expect(await store.revocations.listSince(T0)).toHaveLength(1);
    expect(applied.map((event) => event.subject)).toEqual([String(user.id)]);
  });

  it('has applied a change made before changed() was called when changed() returns, even if a read was already under way', async () => {
    // The read under way took its snapshot before the change committed; it must not stand in
    // for a read that sees the change (the admin API relies on this to refuse tokens at once).
    let hold: Promise<void> | undefined;
    let release!: () => void;
    let queried!: () => void;
    const gated: RevocationStore = {
      async listSince(since) {
        const events = await store.revocations.listSince(since);
        if (hold) {
          queried();
          await hold;
        }
        // A query takes a while: its result arrives in a later turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
        return events;
      },
      prune: (before) => store.revocations.prune(before),
    };
    const { list } = recordingList();
    const created = feed({ list, store: gated });
    await created.start();

    const user = await store.users.create(newUser(`race-${randomBytes(4).toString('hex')}@example.com`, clock.now()));
    const snapshotTaken = new Promise<void>((resolve) => (queried = resolve));
    hold = new Promise((resolve) => (release = resolve));
    const underWay = created.read();
    // The read under way has run its query (it saw no event) and waits; now the change commits.
    await snapshotTaken;
    clock.advance(100);
    expect(await store.users.addRole(user.id, 'Admin')).toBe(true);
    const changed = created.changed();
    hold = undefined;
    release();
    await changed;
    expect(list.refusesAccessToken(user.id, 1), 'the change is applied when changed() returns').toBe(true);
    await underWay;
  });

  describe.skipIf(!withRedis)('with Redis', () => {
    it('applies a change within 5 s when another feed on the same database announces it, though it polls only every minute', async () => {
      const other = await createStore(databaseUrl, { clock });
      extraStores.push(other);
      const a = recordingList();
      const b = recordingList();
      const feedA = feed({ list: a.list, pollMs: NO_POLLING_MS, redis: redisConnection() });
      const feedB = feed({ list: b.list, store: other.revocations, pollMs: NO_POLLING_MS, redis: redisConnection() });
      await Promise.all([feedA.start(), feedB.start()]);

      const user = await store.users.create(newUser(`nudge-${randomBytes(4).toString('hex')}@example.com`, clock.now()));
      expect(await store.users.addRole(user.id, 'Admin')).toBe(true);
      // Other test files may nudge the same channel; any nudge is still the Redis path, never a poll.
      await feedB.announce();
      const deadline = Date.now() + 5_000;
      await waitUntil(() => a.list.refusesAccessToken(user.id, 1), {
        timeoutMs: deadline - Date.now(),
        intervalMs: 20,
        what: 'feed A to apply the change announced by feed B',
      });
      expect(a.applied.map((event) => event.subject)).toContain(String(user.id));
    });

    it('stop() releases its subscriber, and closing the connection then leaves no handle (the process exits on its own)', async () => {
      // A separate process: only an open handle (a Redis socket left behind) would keep it alive.
      const folder = await mkdtemp(join(tmpdir(), 'gatehouse-feed-'));
      try {
        const script = join(folder, 'feed-stop.mts');
        const source = (path: string) => JSON.stringify(new URL(path, pathToFileURL(projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`)).href);
        await writeFile(
          script,
          [
            `import { createLogger } from ${source('src/platform/logger.ts')};`,
            `import { RedisConnection } from ${source('src/platform/redis-connection.ts')};`,
            `import { RevocationFeed } from ${source('src/revocation/revocation-feed.ts')};`,
            `import { RevocationList } from ${source('src/revocation/revocation-list.ts')};`,
            `import { createStore } from ${source('src/store/create-store.ts')};`,
            `const store = await createStore(process.env.FEED_DATABASE_URL!);`,
            `await store.migrate();`,
            `const logger = createLogger({ level: 'silent' });`,
            `const redis = new RedisConnection({ url: process.env.FEED_REDIS_URL!, logger });`,
            `const feed = new RevocationFeed({ store: store.revocations, list: new RevocationList(), clock: { now: () => Date.now() },`,
            `  logger, lookBackMs: 60_000, pollMs: 60_000, redis });`,
            `await feed.start();`,
            `await feed.announce();`,
            `await feed.stop();`,
            `await redis.close();`,
            `await store.close();`,
            `console.log('stopped');`,
          ].join('\n'),
        );
        const result = await runNode(['--import', 'tsx', script], { FEED_DATABASE_URL: databaseUrl, FEED_REDIS_URL: redisUrl }, 20_000);
        expect(result.stdout.trim(), result.stderr).toBe('stopped');
        expect({ code: result.code, signal: result.signal }, result.stderr).toEqual({ code: 0, signal: null });
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });
  });
});
