/**
 * `FRAMEWORK=express|hono|nestjs|nestjs-fastify npm start`: the reference service on those hosts,
 * as a process over real sockets — started from the CLI's users, serving the REST routes, the membership, GraphQL over
 * HTTP and WebSocket, and shutting down at SIGTERM; an unknown FRAMEWORK stops the start (exit 2).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { runCli, runNode, startService, useProcessCleanup } from '../helpers/processes.ts';
import { serviceArguments } from '../../bench/lib/gatehouse.ts';
import { projectRoot } from '../helpers/processes.ts';

const [sqlite] = await testEngines();
const engine = sqlite!;
const PASSWORD = 'a long and unguessable passphrase';

useProcessCleanup();
afterAll(() => engine.dropAll());

describe.each(['express', 'hono', 'nestjs', 'nestjs-fastify'])('FRAMEWORK=%s', { timeout: 60_000 }, (framework) => {
  it('serves the contract: health, sign-in, the fallback policy, a resource, GraphQL over HTTP and WebSocket, and drains at SIGTERM', async () => {
    const env = { DATABASE_URL: await engine.createDatabaseUrl(), PORT: '0', KEYRING_SECRET: undefined, FRAMEWORK: framework };
    const added = await runCli(['users', 'add', '--email', 'ada@example.com', '--password', PASSWORD, '--name', 'ada', '--confirmed'], env);
    expect(added.code).toBe(0);
    const service = await startService(env);
    const { url } = service;

    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
    const anonymous = await fetch(`${url}/me`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.headers.get('x-content-type-options')).toBe('nosniff');

    const signIn = (password: string) =>
      fetch(`${url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com', password }) });
    const wrong = await signIn('not the password');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'GH_SIGNIN_FAILED', succeeded: false });
    const { accessToken } = (await (await signIn(PASSWORD)).json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    const me = await fetch(`${url}/me`, { headers: auth });
    expect(me.status).toBe(200);
    expect(await me.text()).toBe('ada');

    // A body is read only after the route's decision: no credentials, 401 whatever the body.
    const noCredentials = await fetch(`${url}/documents`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(noCredentials.status).toBe(401);
    const notJson = await fetch(`${url}/documents`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' });
    expect(notJson.status).toBe(415);
    const created = await fetch(`${url}/documents`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: 't', body: 'b' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    expect((await fetch(`${url}/documents/${id}`, { headers: auth })).status).toBe(200);
    const unknown = await fetch(`${url}/no/such/path`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    const socket = openSocket(`${url}/graphql`, { connectionParams: { authorization: `Bearer ${accessToken}` } });
    await socket.connected;
    const posts = socket.subscribe('subscription { postCreated { title } }');
    // The subscription runs once a post reaches it: create posts until one does.
    let sent = 0;
    const creating = setInterval(() => {
      void fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation($t: String!) { createPost(title: $t, body: "b") { id } }', variables: { t: `post ${++sent}` } }),
      });
    }, 50);
    try {
      await posts.receivedCount(1, 10_000);
    } finally {
      clearInterval(creating);
    }
    expect(posts.received[0]?.data).toMatchObject({ postCreated: { title: expect.stringMatching(/^post \d+$/) } });

    const exit = await service.stop();
    expect(exit.code).toBe(0);
    expect(service.handle.stdout()).toMatch(/"msg":"shut down"/);
    expect((await socket.closed).code).toBe(1001);
  });
});

describe('an unknown FRAMEWORK', () => {
  it('stops the start for a framework it does not know, with exit 2 and one line', async () => {
    const result = await runNode(serviceArguments(projectRoot), { DATABASE_URL: await engine.createDatabaseUrl(), FRAMEWORK: 'koa' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('gatehouse: FRAMEWORK must be one of fastify, express, hono, nestjs, nestjs-fastify (got "koa")');
  });
});
