/**
 * Subscriptions across instances (docs/reference/graphql.md and docs/reference/persistence.md): two instances on one PostgreSQL and one
 * Redis; a subscriber on either receives the posts created on the other, each once.
 */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { redisAvailable, testEngines } from '../helpers/databases.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const postgres = (await testEngines()).filter((engine) => engine.engine === 'postgres');
const withRedis = await redisAvailable();
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.skipIf(!withRedis).each(postgres)('postCreated across two instances through Redis on $engine', (engine) => {
  const instances: TestApp[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    for (let i = 0; i < 2; i++) {
      const instance = await startTestApp(databaseUrl, { env: { REDIS_URL: redisUrl } });
      instances.push(instance);
      urls.push(`${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`);
    }
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await engine.dropAll();
  });

  it('delivers a post created on one instance to the subscribers of both, once each', async () => {
    const [one, two] = instances as [TestApp, TestApp];
    const { user } = await one.createUser();
    const token = await one.tokenFor(user);
    const tag = `fan-out ${Date.now()}`;
    const received: Record<number, string[]> = { 0: [], 1: [] };
    const clients = urls.map((url, index) => {
      const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, connectionParams: { authorization: `Bearer ${token}` } });
      client.subscribe<{ postCreated: { title: string } }>(
        { query: 'subscription { postCreated { title } }' },
        { next: (value) => void (value.data && received[index]!.push(value.data.postCreated.title)), error: () => undefined, complete: () => undefined },
      );
      return client;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const create = async (instance: TestApp, title: string) => {
      const response = await instance.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: bearer(token),
        payload: { query: 'mutation($t: String!) { createPost(title: $t, body: "b") { id } }', variables: { t: title } },
      });
      expect(json<{ errors?: unknown }>(response).errors).toBeUndefined();
    };
    await create(two, `${tag} from two`);
    await create(one, `${tag} from one`);
    const ours = (index: number) => received[index]!.filter((title) => title.startsWith(tag));
    await expect.poll(() => ours(0).length + ours(1).length, { timeout: 5000, interval: 50 }).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ours(0)).toEqual([`${tag} from two`, `${tag} from one`]);
    expect(ours(1)).toEqual([`${tag} from two`, `${tag} from one`]);
    await Promise.all(clients.map((client) => client.dispose()));
  });

  it('closes a socket on one instance with 4403 when the user is locked on the other', async () => {
    const [one] = instances as [TestApp, TestApp];
    const { user } = await one.createUser();
    let closedWith: number | undefined;
    const client = createClient({
      url: urls[1]!,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${await one.tokenFor(user)}` },
      on: { closed: (event) => void (closedWith = (event as CloseEvent).code) },
    });
    client.subscribe({ query: 'subscription { postCreated { title } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(closedWith).toBeUndefined();
    const admin = await one.createUser({ roles: ['Admin'] });
    const lock = await one.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers: bearer(await one.tokenFor(admin.user)) });
    expect(lock.statusCode).toBe(204);
    await expect.poll(() => closedWith, { timeout: 5000, interval: 50 }).toBe(4403);
    await client.dispose();
  });
});
