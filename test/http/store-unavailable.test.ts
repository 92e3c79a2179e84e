/**
 * docs/reference/http.md: when the store cannot be reached the service answers 503 problem+json (never
 * a 500, never a grant), and recovers on its own when the store returns. PostgreSQL is reached
 * through a TCP relay the test can cut.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const postgres = (await testEngines()).find((engine) => engine.engine === 'postgres');

/** A relay to PostgreSQL that can drop every connection and refuse new ones. */
class Relay {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

describe.skipIf(!postgres)('an unreachable store', () => {
  let relay: Relay;
  let ctx: TestApp;

  beforeEach(async () => {
    const url = new URL(await postgres!.createDatabaseUrl());
    relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
    await relay.open();
    url.host = `127.0.0.1:${relay.port}`;
    ctx = await startTestApp(url.toString());
  });

  afterEach(async () => {
    await relay.open();
    await ctx.close();
    await relay.cut();
  });

  afterAll(() => postgres?.dropAll());

  it('answers 503 problem+json while the database is gone, and recovers when it returns', async () => {
    const { user } = await ctx.createUser();
    const key = await ctx.apiKey('ops');
    const headers = bearer(await ctx.tokenFor(user));
    await relay.cut();

    const document = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } });
    expect(document.statusCode).toBe(503);
    expect(document.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(document)).toMatchObject({ status: 503, title: 'Service Unavailable' });
    expect(document.headers['retry-after']).toBe('5');
    const byKey = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } });
    expect(byKey.statusCode).toBe(503);

    await relay.open();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } })).statusCode;
      if (status === 201) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(201);
  });
});
