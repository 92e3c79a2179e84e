/**
 * SEC-10 and SEC-114 (oversized request headers) and docs/reference/http.md (431 as problem+json): headers
 * over Node's 16 KiB limit — one huge header, a 40 KB Cookie, a 64 KB header on a WebSocket
 * upgrade — are answered 431 problem+json and the connection closed; bytes that are not HTTP get
 * 400 problem+json. Never a 500, never Node's or Fastify's own JSON, and the service goes on
 * serving. Sent over raw sockets, since a client library would refuse to send such requests.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** Sends `request` as it is and resolves with everything the server wrote once it closed the connection. */
function sendRaw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.write(request);
  });
}

function expectProblem(received: string, status: number, code: string): void {
  const [head, body] = received.split('\r\n\r\n', 2) as [string, string];
  expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(head).toMatch(/\r\nx-content-type-options: nosniff/i);
  expect(head).toMatch(/\r\nconnection: close/i);
  expect(JSON.parse(body)).toMatchObject({ type: expect.any(String), title: expect.any(String), status, code });
}

describe.runIf(sqlite)('oversized and malformed request headers (SEC-10, SEC-114)', () => {
  let instance: TestApp;
  let port: number;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl());
    const address = await instance.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(address).port);
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite?.dropAll();
  });

  async function stillServes(): Promise<void> {
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  }

  it('answers one header over 16 KiB with 431 problem+json and closes', async () => {
    expectProblem(await sendRaw(port, `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'GH_HEADERS_TOO_LARGE');
    await stillServes();
  });

  it('answers a 40 KB Cookie header with 431, on a page and on the API', async () => {
    const cookie = `gh.auth=${'b'.repeat(40_000)}`;
    for (const path of ['/account/profile', '/me']) {
      expectProblem(await sendRaw(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\nCookie: ${cookie}\r\n\r\n`), 431, 'GH_HEADERS_TOO_LARGE');
    }
    await stillServes();
  });

  it('answers a WebSocket upgrade with a 64 KB header with 431', async () => {
    const upgrade = [
      'GET /graphql HTTP/1.1',
      'Host: localhost',
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol: graphql-transport-ws',
      `X-Big: ${'c'.repeat(64 * 1024)}`,
    ];
    expectProblem(await sendRaw(port, `${upgrade.join('\r\n')}\r\n\r\n`), 431, 'GH_HEADERS_TOO_LARGE');
    await stillServes();
  });

  it('answers bytes that are not HTTP with 400 problem+json', async () => {
    for (const request of ['GET /health HTTP/1.1\r\nHost: localhost\r\nNot a header\r\n\r\n', 'HELLO\r\n\r\n', 'GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n']) {
      const received = await sendRaw(port, request);
      expectProblem(received, 400, 'GH_VALIDATION_FAILED');
      expect(JSON.parse(received.split('\r\n\r\n', 2)[1]!).errors).toHaveProperty('request');
    }
    await stillServes();
  });
});
