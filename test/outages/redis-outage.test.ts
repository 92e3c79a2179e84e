/**
 * Redis away, at start or while running (docs/reference/persistence.md): each instance starts and
 * serves on its own view — a post created on an instance reaches that instance's subscribers,
 * revocations arrive by polling the store, rate limits count per instance — with one warning in
 * its log, not one per reconnection attempt; when Redis answers again (one info line) the
 * instances share again, without a restart: posts fan out across them, each once, and
 * revocations are announced through Redis. A private redis-server is stopped and started; two
 * instances share one fresh PostgreSQL database.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type TestEngine, testEngines } from '../helpers/databases.ts';
import { openSocket, type Subscription, type TestSocket } from '../helpers/graphql-socket.ts';
import { freePort, waitUntil } from '../helpers/processes.ts';
import { privateRedis, type RedisServer } from '../helpers/redis-server.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const postgres = (await testEngines()).find((engine) => engine.engine === 'postgres');

const WENT_AWAY = /Redis does not answer/;
const CAME_BACK = /Redis answers again/;

interface Instance {
  readonly app: TestApp;
  readonly socketUrl: string;
}

/** The log lines of `instance` that match `pattern`. */
function linesOf(instance: Instance, pattern: RegExp): string[] {
  return instance.app.logs.filter((line) => pattern.test(line));
}

async function startInstance(databaseUrl: string, redis: RedisServer): Promise<Instance> {
  const app = await startTestApp(databaseUrl, { env: { REDIS_URL: redis.url } });
  const address = await app.app.listen({ host: '127.0.0.1', port: 0 });
  return { app, socketUrl: `${address.replace('http', 'ws')}/graphql` };
}

async function createPost(instance: Instance, token: string, title: string): Promise<void> {
  const response = await instance.app.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: bearer(token),
    payload: { query: 'mutation($t: String!) { createPost(title: $t, body: "b") { id } }', variables: { t: title } },
  });
  expect(json<{ errors?: unknown }>(response).errors).toBeUndefined();
}

function titles(subscription: Subscription): string[] {
  return subscription.received.map((result) => (result.data?.postCreated as { title: string }).title);
}

/**
 * Waits until the subscription is in place on the server: probe posts are created on `instance`
 * until one arrives (a subscribe message is acknowledged by nothing but its first event).
 */
async function subscribed(subscription: Subscription, instance: Instance, token: string, tag: string): Promise<void> {
  let probes = 0;
  await waitUntil(
    async () => {
      if (titles(subscription).some((title) => title.startsWith(`${tag} probe`))) return true;
      await createPost(instance, token, `${tag} probe ${++probes}`);
      return false;
    },
    { timeoutMs: 10_000, intervalMs: 200, what: 'the subscription to take its first event' },
  );
}

/** The titles `subscription` received that start with `prefix`, once `marker` (created last) has arrived too. */
async function receivedBefore(subscription: Subscription, prefix: string, marker: string): Promise<string[]> {
  await waitUntil(() => titles(subscription).includes(marker), { timeoutMs: 10_000, intervalMs: 20, what: `${marker} to arrive` });
  return titles(subscription).filter((title) => title.startsWith(prefix));
}

async function ready(instance: Instance) {
  const response = await instance.app.app.inject({ url: '/health/ready' });
  return { status: response.statusCode, body: json<{ checks: Record<string, string> }>(response), headers: response.headers };
}

/** Every message on the revocation channel of `redis`, as it arrives. */
async function listenForRevocationNotices(redis: RedisServer): Promise<{ messages: string[]; close: () => void }> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  const messages: string[] = [];
  client.on('message', (_channel: string, message: string) => messages.push(message));
  client.on('error', () => undefined);
  await client.subscribe('gatehouse:revocations');
  return { messages, close: () => client.disconnect() };
}

/** A revocation made on `one` (an admin locks a user) is announced through Redis. */
async function lockIsAnnounced(redis: RedisServer, one: Instance): Promise<void> {
  const notices = await listenForRevocationNotices(redis);
  try {
    const admin = await one.app.createUser({ roles: ['Admin'] });
    const { user } = await one.app.createUser();
    const lock = await one.app.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers: bearer(await one.app.tokenFor(admin.user)) });
    expect(lock.statusCode).toBe(204);
    await waitUntil(() => notices.messages.length > 0, { timeoutMs: 5_000, intervalMs: 20, what: 'a revocation notice on Redis' });
  } finally {
    notices.close();
  }
}

/** Posts created on either instance reach the subscribers of both, each once. */
async function fanOutAcross(instances: readonly Instance[], token: string, tag: string): Promise<void> {
  const [one, two] = instances as [Instance, Instance];
  const sockets: TestSocket[] = instances.map((instance) => openSocket(instance.socketUrl, { connectionParams: { authorization: `Bearer ${token}` } }));
  try {
    const subscriptions = sockets.map((socket) => socket.subscribe('subscription { postCreated { title } }'));
    for (const [index, instance] of instances.entries()) await subscribed(subscriptions[index]!, instance, token, `${tag} ${index}`);
    await createPost(one, token, `${tag} from one`);
    await createPost(two, token, `${tag} from two`);
    await createPost(two, token, `${tag} marker`);
    for (const subscription of subscriptions) {
      expect((await receivedBefore(subscription, `${tag} from`, `${tag} marker`)).sort()).toEqual([`${tag} from one`, `${tag} from two`]);
    }
  } finally {
    await Promise.all(sockets.map((socket) => socket.dispose()));
  }
}

/** Redis is away: a post created on `one` reaches one's own subscriber, once. */
async function deliveredLocally(one: Instance, token: string, tag: string): Promise<void> {
  const socket = openSocket(one.socketUrl, { connectionParams: { authorization: `Bearer ${token}` } });
  try {
    const subscription = socket.subscribe('subscription { postCreated { title } }');
    await subscribed(subscription, one, token, tag);
    await createPost(one, token, `${tag} while away`);
    await createPost(one, token, `${tag} marker`);
    expect(await receivedBefore(subscription, `${tag} while away`, `${tag} marker`)).toEqual([`${tag} while away`]);
  } finally {
    await socket.dispose();
  }
}

describe.skipIf(!postgres)('Redis away and back', { timeout: 90_000 }, () => {
  const engine = postgres as TestEngine;
  let instances: Instance[] = [];
  let redis: RedisServer | undefined;

  afterEach(async () => {
    await Promise.all(instances.map((instance) => instance.app.close()));
    instances = [];
    await redis?.stop();
  });
  afterAll(() => engine.dropAll());

  it('starts with Redis down, serves on its own view with one warning, and shares again once Redis answers', async () => {
    redis = privateRedis(await freePort());
    const databaseUrl = await engine.createDatabaseUrl();
    const one = await startInstance(databaseUrl, redis);
    const two = await startInstance(databaseUrl, redis);
    instances = [one, two];
    const { user, password } = await one.app.createUser();
    const token = await one.app.tokenFor(user);

    // Serving: a sign-in (rate-limited per instance meanwhile) and a subscriber of the same instance.
    const signIn = await one.app.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    expect(signIn.statusCode).toBe(200);
    await deliveredLocally(one, token, 'down at start');
    // Degraded, not unready: every instance would leave the balancer's rotation at once.
    expect(await ready(one)).toMatchObject({ status: 200, body: { status: 'degraded', checks: { store: 'up', redis: 'down' } } });
    for (const instance of instances) expect(linesOf(instance, WENT_AWAY)).toHaveLength(1);

    await redis.start();
    for (const instance of instances) {
      await waitUntil(() => linesOf(instance, CAME_BACK).length > 0, { timeoutMs: 15_000, what: '"Redis answers again" in the log' });
    }
    expect(await ready(one)).toMatchObject({ status: 200, body: { status: 'ready', checks: { store: 'up', redis: 'up' } } });
    await fanOutAcross(instances, token, 'after start');
    await lockIsAnnounced(redis, one);
    // Rate-limit counters are in Redis again.
    await one.app.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    const counters = new Redis(redis.url);
    try {
      expect(await counters.keys('gatehouse:rl:*')).not.toEqual([]);
    } finally {
      counters.disconnect();
    }
    // Every retry while Redis was down went unlogged: one warning, one recovery line, each instance.
    for (const instance of instances) expect([linesOf(instance, WENT_AWAY).length, linesOf(instance, CAME_BACK).length]).toEqual([1, 1]);
  });

  it('loses Redis while running: degrades with one warning, and recovers on its own', async () => {
    redis = privateRedis(await freePort());
    await redis.start();
    const databaseUrl = await engine.createDatabaseUrl();
    const one = await startInstance(databaseUrl, redis);
    const two = await startInstance(databaseUrl, redis);
    instances = [one, two];
    const { user } = await one.app.createUser();
    const token = await one.app.tokenFor(user);
    await fanOutAcross(instances, token, 'before');
    expect((await ready(one)).status).toBe(200);

    await redis.stop();
    for (const instance of instances) {
      await waitUntil(() => linesOf(instance, WENT_AWAY).length > 0, { timeoutMs: 10_000, what: '"Redis does not answer" in the log' });
    }
    await deliveredLocally(one, token, 'lost');
    expect(await ready(two)).toMatchObject({ status: 200, body: { status: 'degraded', checks: { store: 'up', redis: 'down' } } });
    // A revocation still reaches the other instance, by polling the store.
    const admin = await one.app.createUser({ roles: ['Admin'] });
    const victim = await one.app.createUser();
    const victimToken = await one.app.tokenFor(victim.user);
    expect((await two.app.app.inject({ url: '/me', headers: bearer(victimToken) })).statusCode).toBe(200);
    const lock = await one.app.app.inject({ method: 'POST', url: `/admin/users/${victim.user.id}/lock`, headers: bearer(await one.app.tokenFor(admin.user)) });
    expect(lock.statusCode).toBe(204);
    await waitUntil(async () => (await two.app.app.inject({ url: '/me', headers: bearer(victimToken) })).statusCode === 401, {
      timeoutMs: 5_000,
      what: 'the other instance to refuse the locked user',
    });

    await redis.start();
    for (const instance of instances) {
      await waitUntil(() => linesOf(instance, CAME_BACK).length > 0, { timeoutMs: 15_000, what: '"Redis answers again" in the log' });
    }
    expect(await ready(two)).toMatchObject({ status: 200, body: { status: 'ready' } });
    await fanOutAcross(instances, token, 'after');
    await lockIsAnnounced(redis, one);
    for (const instance of instances) expect([linesOf(instance, WENT_AWAY).length, linesOf(instance, CAME_BACK).length]).toEqual([1, 1]);
  });
});
