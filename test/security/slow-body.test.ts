/**
 * SEC-118 (slowloris) and docs/reference/configuration.md (`REQUEST_TIMEOUT_SECONDS`): a request whose headers or
 * body trickle in, a byte at a time, is cut off once the timeout has passed since it began: the
 * connection is answered 408 problem+json (when nothing of an answer was written yet) and closed,
 * and the service goes on serving others. Driven over raw sockets against a listening instance,
 * with a timeout of one second; each test waits for the connection's close, never for a clock.
 * An idle keep-alive connection and a WebSocket on GET /graphql (once upgraded, no longer an HTTP
 * request) are not cut: each still answers after a slow request opened later has been cut off.
 */
import { connect, type Socket } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** Everything the server wrote on a connection, once it has closed it. */
interface Closed {
  readonly received: string;
}

/** Opens a raw connection; `closed` settles when the server has closed it. */
function rawConnection(port: number): { socket: Socket; closed: Promise<Closed> } {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  // A write racing the server's close fails; the close is what the test waits for.
  socket.on('error', () => undefined);
  const closed = new Promise<Closed>((resolve) => socket.on('close', () => resolve({ received })));
  return { socket, closed };
}

/** Writes `text` one byte every `everyMs` until the connection closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let next = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || next >= text.length) return clearInterval(timer);
    socket.write(text[next++]!);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/** The connection was answered 408 problem+json before it closed. */
function expectTimedOut({ received }: Closed): void {
  const [head, body] = received.split('\r\n\r\n', 2) as [string, string];
  expect(head).toMatch(/^HTTP\/1\.1 408 /);
  expect(head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(head).toMatch(/\r\nx-content-type-options: nosniff/i);
  expect(JSON.parse(body)).toMatchObject({ status: 408, title: 'Request Timeout', code: 'GH_REQUEST_TIMEOUT' });
}

describe.runIf(sqlite)('slow requests are cut off (SEC-118)', () => {
  let instance: TestApp;
  let port: number;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), { env: { REQUEST_TIMEOUT_SECONDS: '1' } });
    const address = await instance.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(address).port);
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite?.dropAll();
  });

  async function stillServes(): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    expect(response.status).toBe(200);
  }

  it('answers 408 problem+json and closes a connection whose body trickles in', async () => {
    const { socket, closed } = rawConnection(port);
    socket.write('POST /auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n');
    trickle(socket, `{"email":"someone@example.com","password":"${'x'.repeat(4000)}"}`, 200);
    expectTimedOut(await closed);
    await stillServes();
    // The body the client stopped sending is its doing, not a fault of ours to log as one.
    expect(instance.logs.join('')).not.toContain('unexpected error');
  });

  it('closes a connection whose headers trickle in', async () => {
    const { socket, closed } = rawConnection(port);
    trickle(socket, `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(4000)}\r\n\r\n`, 200);
    expectTimedOut(await closed);
    await stillServes();
  });

  it('closes a connection that sends nothing', async () => {
    const { closed } = rawConnection(port);
    expectTimedOut(await closed);
  });

  it('leaves an idle keep-alive connection alone: it serves its next request after a slow one was cut', async () => {
    const idle = connect(port, '127.0.0.1');
    let received = '';
    const answered = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (received.split('HTTP/1.1 200 ').length - 1 >= count ? resolve() : idle.once('data', check));
        check();
      });
    idle.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    idle.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await answered(1);

    // By the time a slow request opened after it is cut, the idle connection has waited longer than the timeout.
    const { socket, closed } = rawConnection(port);
    socket.write('POST /auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n');
    trickle(socket, '{'.repeat(100), 200);
    expectTimedOut(await closed);

    expect(idle.destroyed).toBe(false);
    idle.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await answered(2);
    expect(received).not.toContain(' 408 ');
    idle.destroy();
  });

  it('keeps a GraphQL WebSocket open after the timeout, while a slow request is cut', async () => {
    const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
    const socketClosed = new Promise<number>((resolve) => client.on('closed', (event) => resolve((event as CloseEvent).code)));
    await new Promise<void>((resolve) => client.on('connected', () => resolve()));

    // A slow request opened after the upgrade: by the time it is cut, the socket has lived longer than the timeout.
    const { socket, closed } = rawConnection(port);
    socket.write('POST /auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n');
    trickle(socket, '{'.repeat(100), 200);
    expectTimedOut(await closed);

    const result = await new Promise<unknown>((resolve, reject) => {
      client.subscribe({ query: '{ posts(first: 1) { id } }' }, { next: resolve, error: reject, complete: () => undefined });
    });
    expect(result).toEqual({ data: { posts: [] } });
    const open = await Promise.race([socketClosed, Promise.resolve('open')]);
    expect(open).toBe('open');
    await client.dispose();
  });
});
