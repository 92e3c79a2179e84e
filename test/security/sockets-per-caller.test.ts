/**
 * SEC-128, sockets per caller (docs/reference/graphql.md, "Limits of a socket"), with real sockets
 * against a listening instance: a user holds at most `GRAPHQL_MAX_SOCKETS_PER_USER` sockets (20 by
 * default), counted once `connection_init` or the upgrade's credential names them, whichever
 * carried the credential; a client address at most `GRAPHQL_MAX_SOCKETS_PER_IP`, counted from the
 * upgrade, signed in or not. One over is closed with 4429 and the others go on; a closed socket
 * frees its place (`/metrics` tells when the server has let go of a socket). Engine-independent: SQLite only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openSocket, type TestSocket } from '../helpers/graphql-socket.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PER_IP = 30;

describe('sockets per user and per client address', () => {
  let instance: TestApp;
  let base: string;
  let url: string;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { GRAPHQL_MAX_SOCKETS_PER_IP: String(PER_IP), METRICS: 'true' } });
    base = await instance.app.listen({ host: '127.0.0.1', port: 0 });
    url = `${base.replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite!.dropAll();
  });

  const opened: TestSocket[] = [];
  const open = (...args: Parameters<typeof openSocket>) => {
    const socket = openSocket(...args);
    opened.push(socket);
    return socket;
  };
  const closeAll = async () => {
    await Promise.all(opened.splice(0).map((socket) => socket.dispose()));
    // Until the server has let go of every one (`/metrics`, from loopback).
    await expect.poll(async () => /^gatehouse_graphql_sockets 0$/m.test(await (await fetch(`${base}/metrics`)).text()), { timeout: 10_000 }).toBe(true);
  };

  it('closes the 21st socket of one user with 4429, whichever way each carries the token, and lets one in when another closes', async () => {
    const { user } = await instance.createUser();
    const token = await instance.tokenFor(user);
    const sockets = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? open(url, { connectionParams: { authorization: `Bearer ${token}` } }) : open(url, { headers: { authorization: `Bearer ${token}` } }),
    );
    await Promise.all(sockets.map((socket) => socket.connected));

    const over = open(url, { connectionParams: { authorization: `Bearer ${token}` } });
    expect(await over.closedWithin(5_000)).toEqual({ code: 4429, reason: expect.stringMatching(/too many/i) });
    // Another user is not counted with this one.
    const other = open(url, { connectionParams: { authorization: `Bearer ${await instance.tokenFor((await instance.createUser()).user)}` } });
    await other.connected;
    expect(await other.execute('{ me { id } }')).toEqual({ data: { me: { id: expect.any(String) } } });

    expect(sockets.every((socket) => !socket.isClosed())).toBe(true);
    expect(await sockets[19]!.execute('{ me { id } }')).toEqual({ data: { me: { id: String(user.id) } } });
    await sockets[0]!.dispose();
    await expect.poll(async () => {
      const again = open(url, { connectionParams: { authorization: `Bearer ${token}` } });
      return Promise.race([again.connected.then(() => 'connected'), again.closed.then(({ code }) => code)]);
    }).toBe('connected');
    await closeAll();
  });

  it(`closes the socket over ${PER_IP} of one client address with 4429, anonymous or signed in`, async () => {
    const anonymous = Array.from({ length: PER_IP - 1 }, () => open(url));
    const signedIn = open(url, { connectionParams: { authorization: `Bearer ${await instance.tokenFor((await instance.createUser()).user)}` } });
    await Promise.all([...anonymous, signedIn].map((socket) => socket.connected));

    const over = open(url);
    expect(await over.closedWithin(5_000)).toEqual({ code: 4429, reason: expect.stringMatching(/too many/i) });
    expect([...anonymous, signedIn].every((socket) => !socket.isClosed())).toBe(true);
    expect(await anonymous[0]!.execute('{ posts(first: 1) { id } }')).toEqual({ data: { posts: [] } });
    await closeAll();
  });
});
